// gate calibrate's numbers from an A/A comparison, through stats/power.
#include "stats/aa_noise.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "stats/instrument.hpp"
#include "stats/power.hpp"

namespace gate::stats {

namespace {

// The function's runs on each side (as compared: run i of each) and their durations.
stats::NoiseSources sources_of(const std::string& function, double level, const std::vector<RunResult>& base,
                               const std::vector<RunResult>& head) {
  std::vector<const FunctionRun*> runs[2];
  std::vector<double> durations[2];
  for (int side = 0; side < 2; ++side)
    for (const RunResult& run : side == 0 ? base : head) {
      const FunctionRun* found = nullptr;
      for (const FunctionRun& f : run.functions)
        if (f.name.str() == function) {
          found = &f;
          break;
        }
      runs[side].push_back(found);
      durations[side].push_back(run.duration_s);
    }
  return stats::noise_sources(runs[0], durations[0], runs[1], durations[1], level);
}

}  // namespace

double CalibrationRow::noise_with_calls(double k) const {
  // The sampling estimate can exceed the measured noise (a quantile between modes is compared by a
  // smoother window mean, see stats/compare.cpp): it is then all of it.
  const double s = std::min(sources.sampling, noise);
  return std::sqrt(noise * noise - s * s + s * s / std::max(k, 1e-9));
}

int aa_pairs(int runs_flag, int config_runs) {
  const int pairs = runs_flag ? runs_flag : std::max(10, config_runs);
  if (const int least = stats::CompareOptions{}.min_runs; pairs < least)
    throw Error::make("gate calibrate --runs " + std::to_string(pairs),
                      "too few pairs: a function's noise needs >= " + std::to_string(least) + " pairs of runs",
                      "use --runs " + std::to_string(least) + " or more (10 or more for a steadier figure)");
  return pairs;
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
      // The sampled instrument's test (cpu/call) is no quantile of the calls: its sources are not split.
      const bool quantile = q.name != stats::kSampledTestName;
      const stats::QuantileSpec spec = quantile ? stats::QuantileSpec::parse(q.name) : stats::QuantileSpec{};
      // A quantile between two modes (explain::note) was compared by the mean of the calls around it, whose
      // sampling is not the quantile's: its split is left unknown.
      if (quantile && base_runs && head_runs && !spec.is_mean && !q.window.used) {
        const stats::NoiseSources s = sources_of(f.name, spec.q, *base_runs, *head_runs);
        r.sources = s;
      }
      // Advice only where it matters: the target slowdown needs more pairs than max_runs.
      const bool short_of_target = r.pairs_for_target > std::max(runs, max_runs);
      if (short_of_target && r.sources.sampling > 0) {
        using Advice = CalibrationRow::Advice;
        if (r.sources.mostly_sampling(r.noise)) r.advice = Advice::kLongerRuns;
        else if (r.spread_over_the_run()) r.advice = Advice::kLongerOrMoreRuns;
        else r.advice = Advice::kMoreRuns;  // a burst, or when is not known: more runs always help
      }
      cal.false_regressions += r.false_regression;
      if (r.pairs_for_target > 0) needed.push_back(r.pairs_for_target);
      cal.rows.push_back(r);
    }
  if (!needed.empty()) {
    cal.suggested_runs = std::min(upper_median(needed), Calibration::kMaxPairs);
    std::sort(needed.begin(), needed.end());  // for the 90th percentile below
    cal.suggested_max_runs = std::min(std::max(needed[std::min(needed.size() - 1, needed.size() * 9 / 10)],
                                               cal.suggested_runs),
                                      Calibration::kMaxPairs);
  }
  return cal;
}

}  // namespace gate::stats
