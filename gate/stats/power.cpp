// Detectable effects and run counts from measured noise (Student t, first Holm step).
#include "stats/power.hpp"

#include <algorithm>
#include <cmath>

#include "stats/distributions.hpp"
#include "stats/sequential.hpp"

namespace gate::stats {

double look_level(const PowerModel& m) {
  const double alpha = (1 - m.confidence) / 2 / std::max(1, m.tests);
  if (m.last_look > m.first_look && m.first_look > 0)
    return sequential_looks(m.first_look, m.last_look).per_look_level(alpha);
  return alpha;
}

double detectable_ratio(double noise, int units, double band, const PowerModel& m) {
  if (units < 2 || !(noise >= 0)) return 0;
  const double df = units - 1;
  const double alpha = look_level(m);
  const double k = student_t_quantile(1 - alpha, df) + student_t_quantile(m.power, df);
  return (1 + band) * std::exp(k * noise / std::sqrt(static_cast<double>(units)));
}

int units_to_detect(double noise, double ratio, double band, const PowerModel& m, int max_units) {
  if (!(ratio > 1 + band)) return 0;
  // detectable_ratio falls monotonically with units: bisect.
  if (detectable_ratio(noise, max_units, band, m) > ratio) return max_units + 1;
  int lo = 2, hi = max_units;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (detectable_ratio(noise, mid, band, m) <= ratio)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

double quantile_sampling_sd(const LatencyHistogram& h, double q) {
  if (h.empty() || !(q > 0 && q < 1)) return 0;
  const double s = std::sqrt(q * (1 - q) / static_cast<double>(h.count()));
  const double lo = h.quantile(std::max(q - s, 0.0)), hi = h.quantile(std::min(q + s, 1.0));
  if (!(lo > 0) || !(hi >= lo)) return 0;
  return 0.5 * std::log(hi / lo);
}

}  // namespace gate::stats
