#include "stats/noise_sources.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/numbers.hpp"
#include "stats/power.hpp"

namespace gate::stats {

double NoiseSources::sampling_share(double noise) const {
  return noise > 0 ? std::min(1.0, sampling * sampling / (noise * noise)) : 0;
}

bool NoiseSources::in_a_burst() const {
  return moment_mean >= 0 && (moment_sd < 0.1 || moment_mean < 0.15 || moment_mean > 0.85);
}

NoiseSources noise_sources(const std::vector<const FunctionRun*>& base, const std::vector<double>& base_durations,
                           const std::vector<const FunctionRun*>& head, const std::vector<double>& head_durations,
                           double level) {
  NoiseSources out;
  // Per side the runs' sampling sds averaged as sds (the square of a noisy estimate from a few
  // dozen calls runs high), the two sides added in quadrature (a pair is one base run against one
  // head run).
  double var = 0;
  std::vector<double> calls, means, sds;
  for (const auto& [runs, durations] : {std::pair{&base, &base_durations}, std::pair{&head, &head_durations}}) {
    double sum = 0;
    int n = 0;
    for (size_t r = 0; r < runs->size(); ++r) {
      const FunctionRun* f = (*runs)[r];
      if (!f || f->histogram.empty()) continue;
      sum += quantile_sampling_sd(f->histogram, level);
      ++n;
      calls.push_back(static_cast<double>(f->calls));
      const double d = r < durations->size() ? (*durations)[r] : 0;
      FunctionRun::Moment m;
      if (d > 0 && f->calls_moment(m)) {
        means.push_back(m.mean_s / d);
        sds.push_back(m.sd_s / d);
      }
    }
    if (n == 0) return NoiseSources{};
    var += (sum / n) * (sum / n);
  }
  out.sampling = std::sqrt(var);
  out.calls_per_run = upper_median(calls);
  if (!means.empty()) {
    out.moment_mean = upper_median(means);
    out.moment_sd = upper_median(sds);
  }
  return out;
}

}  // namespace gate::stats
