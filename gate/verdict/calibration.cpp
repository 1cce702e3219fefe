// gate calibrate's numbers from an A/A comparison, through stats/power.
#include "verdict/calibration.hpp"

#include <algorithm>

#include "stats/power.hpp"

namespace gate::verdict {

Calibration calibrate(const stats::Comparison& aa, int runs, int max_runs, double slowdown, double confidence) {
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
