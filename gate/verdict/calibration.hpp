// What an A/A comparison says about a workload on this machine (gate calibrate): per function and
// quantile the measured noise, the smallest slowdown caught at the config's runs and max_runs, the
// pairs a given slowdown needs, and the runs/max_runs to suggest.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "results/result.hpp"
#include "stats/compare.hpp"
#include "stats/noise_sources.hpp"

namespace gate::verdict {

struct CalibrationRow {
  std::string function, quantile;
  double noise = 0;              // log-sd per pair
  double caught_at_runs = 0;     // smallest ratio caught at `runs` pairs (0: not computable)
  double caught_at_max = 0;      // ... at `max_runs` pairs
  double target = 0;             // the slowdown sized for (ratio)
  int pairs_for_target = 0;      // pairs needed for it (max_pairs + 1: more than max_pairs)
  bool false_regression = false; // this A/A test read "regression"
  // Where the noise comes from (set when the runs were given): the part that is chance in which
  // calls a run made (stats::quantile_sampling_sd, per pair), which a longer run shrinks, and the
  // rest: the state the calls met (the machine's speed, start-up work, layout), which more runs
  // average out, and a longer run only if the calls are spread over it.
  double calls_per_run = 0;      // median over both sides' runs
  double sampling = 0;           // log-sd per pair from the calls' sampling (0: unknown)
  double sampling_share() const { return sources().sampling_share(noise); }
  // The noise per pair if every run made `k` times the calls.
  double noise_with_calls(double k) const;
  // When in the run the calls were made, as shares of the run's duration (medians over runs of
  // FunctionRun::calls_moment; mean < 0: not known). Calls made in a burst meet one state of the
  // machine per run: a longer run does not average it.
  double moment_mean = -1, moment_sd = -1;
  bool in_a_burst() const { return sources().in_a_burst(); }
  bool spread_over_the_run() const { return sources().spread_over_the_run(); }
  stats::NoiseSources sources() const { return {sampling, calls_per_run, moment_mean, moment_sd}; }
  enum class Advice { kNone, kLongerRuns, kLongerOrMoreRuns, kMoreRuns };
  // For a test short of the target within max_runs (kNone otherwise, or when the split is not
  // known): kLongerRuns: most of its noise is the calls' sampling. kLongerOrMoreRuns: little of it
  // is, and the calls are spread over the run, which a longer run averages over more of the
  // machine's swings. kMoreRuns: little of it is, and the calls are made in a burst (start-up),
  // or when they are made is not known.
  Advice advice = Advice::kNone;
};

struct Calibration {
  std::vector<CalibrationRow> rows;  // tested quantiles only, in the comparison's order
  int false_regressions = 0;
  int suggested_runs = 0;            // half of the tests decide by then (0: nothing tested)
  int suggested_max_runs = 0;        // 90% of them
  static constexpr int kMaxPairs = 1000;
};

// `slowdown` as a fraction (0.2 = 20%); 0 sizes each test for twice its regression threshold.
// With the A/A's runs (`base_runs`, `head_runs`, as compared), each row also says how much of its
// noise is the sampling of its calls, and whether longer runs or more runs would quiet it.
Calibration calibrate(const stats::Comparison& aa, int runs, int max_runs, double slowdown, double confidence,
                      const std::vector<RunResult>* base_runs = nullptr,
                      const std::vector<RunResult>* head_runs = nullptr);

}  // namespace gate::verdict
