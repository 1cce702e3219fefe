// gate calibrate's numbers from an A/A comparison, through stats/power.
#include "verdict/calibration.hpp"

#include <algorithm>
#include <cmath>

#include "stats/power.hpp"

namespace gate::verdict {

namespace {

// The calls' sampling part of one pair's noise for `function`'s quantile `level`: the two sides'
// per-run sampling sd (averaged over runs as sds, since the square of a noisy estimate from a few
// dozen calls runs high) added in quadrature (a pair is one base run against one head run).
struct Sampling {
  double sd = 0, calls = 0;
  double moment_mean = -1, moment_sd = -1;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
Sampling sampling_of(const std::string& function, double level, const std::vector<RunResult>& base,
                     const std::vector<RunResult>& head) {
  Sampling out;
  double var = 0;
  std::vector<double> calls, means, sds;
  for (const auto* side : {&base, &head}) {
    double sum = 0;
    int n = 0;
    for (const RunResult& run : *side)
      for (const FunctionRun& f : run.functions) {
        if (f.name.str() != function || f.histogram.empty()) continue;
        const double sd = stats::quantile_sampling_sd(f.histogram, level);
        sum += sd;
        ++n;
        calls.push_back(static_cast<double>(f.calls));
        FunctionRun::Moment m;
        if (run.duration_s > 0 && f.calls_moment(m)) {
          means.push_back(m.mean_s / run.duration_s);
          sds.push_back(m.sd_s / run.duration_s);
        }
      }
    if (n == 0) return out;
    var += (sum / n) * (sum / n);
  }
  out.sd = std::sqrt(var);
  out.calls = median_of(calls);
  if (!means.empty()) {
    out.moment_mean = median_of(means);
    out.moment_sd = median_of(sds);
  }
  return out;
}

}  // namespace

double CalibrationRow::noise_with_calls(double k) const {
  // The sampling estimate can exceed the measured noise (a quantile between modes is compared by a
  // smoother window mean, see stats/compare.cpp): it is then all of it.
  const double s = std::min(sampling, noise);
  return std::sqrt(noise * noise - s * s + s * s / std::max(k, 1e-9));
}

Calibration calibrate(const stats::Comparison& aa, int runs, int max_runs, double slowdown, double confidence,
                      const std::vector<RunResult>* base_runs, const std::vector<RunResult>* head_runs) {
  Calibration cal;
  // Caught at runs / at max_runs: as the until-decided loop of that plan tests (its looks' level).
  // Pairs for the target: a fixed number of pairs (runs = max_runs), one look.
  const stats::PowerModel model{confidence, std::max(1, aa.tests), 0.8};
  stats::PowerModel plan = model;
  plan.first_look = runs;
  plan.last_look = std::max(runs, max_runs);
  std::vector<int> needed;
  for (const auto& f : aa.functions)
    for (const auto& q : f.quantiles) {
      if (!q.tested()) continue;
      CalibrationRow r;
      r.function = f.name;
      r.quantile = q.name;
      r.noise = q.noise;
      r.caught_at_runs = stats::detectable_ratio(q.noise, runs, q.band.regression, plan);
      r.caught_at_max = stats::detectable_ratio(q.noise, std::max(runs, max_runs), q.band.regression, plan);
      r.target = 1 + (slowdown > 0 ? slowdown : 2 * q.band.regression);
      r.pairs_for_target = stats::units_to_detect(q.noise, r.target, q.band.regression, model, Calibration::kMaxPairs);
      r.false_regression = q.verdict == stats::Verdict::kRegression;
      const stats::QuantileSpec spec = stats::QuantileSpec::parse(q.name);
      if (base_runs && head_runs && !spec.is_mean) {
        const Sampling s = sampling_of(f.name, spec.q, *base_runs, *head_runs);
        r.sampling = s.sd;
        r.calls_per_run = s.calls;
        r.moment_mean = s.moment_mean;
        r.moment_sd = s.moment_sd;
      }
      // Advice only where it matters: the target slowdown needs more pairs than max_runs.
      const bool short_of_target = r.pairs_for_target > std::max(runs, max_runs);
      if (short_of_target && r.sampling > 0) {
        using Advice = CalibrationRow::Advice;
        if (r.sampling_share() >= 0.5) r.advice = Advice::kLongerRuns;
        else if (r.spread_over_the_run()) r.advice = Advice::kLongerOrMoreRuns;
        else r.advice = Advice::kMoreRuns;  // a burst, or when is not known: more runs always help
      }
      cal.false_regressions += r.false_regression;
      if (r.pairs_for_target > 0) needed.push_back(r.pairs_for_target);
      cal.rows.push_back(r);
    }
  if (!needed.empty()) {
    std::sort(needed.begin(), needed.end());
    cal.suggested_runs = std::min(needed[needed.size() / 2], Calibration::kMaxPairs);
    cal.suggested_max_runs = std::min(std::max(needed[std::min(needed.size() - 1, needed.size() * 9 / 10)],
                                               cal.suggested_runs),
                                      Calibration::kMaxPairs);
  }
  return cal;
}

}  // namespace gate::verdict
