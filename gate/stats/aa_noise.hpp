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

namespace gate::stats {

struct CalibrationRow {
  std::string function, quantile;
  double noise = 0;              // log-sd per pair
  double caught_at_runs = 0;     // smallest ratio caught at `runs` pairs (0: not computable)
  double caught_at_max = 0;      // ... at `max_runs` pairs
  double target = 0;             // the slowdown sized for (ratio)
  int pairs_for_target = 0;      // pairs needed for it (max_pairs + 1: more than max_pairs)
  bool false_regression = false; // this A/A test read "regression"
  // Where the noise comes from (set when the runs were given; stats/noise_sources): the calls'
  // sampling per pair (0: unknown), calls per run, and when in the run the calls were made.
  stats::NoiseSources sources;
  double sampling_share() const { return sources.sampling_share(noise); }
  bool in_a_burst() const { return sources.in_a_burst(); }
  bool spread_over_the_run() const { return sources.spread_over_the_run(); }
  // The noise per pair if every run made `k` times the calls.
  double noise_with_calls(double k) const;
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

// gate calibrate's pairs of runs: --runs when given (runs_flag > 0), else the larger of 10 and the
// config's runs. Throws gate::Error naming --runs when they are fewer than a comparison needs
// (stats::CompareOptions::min_runs).
int aa_pairs(int runs_flag, int config_runs);

// `slowdown` as a fraction (0.2 = 20%); 0 sizes each test for twice its regression threshold.
// With the A/A's runs (`base_runs`, `head_runs`, as compared), each row also says how much of its
// noise is the sampling of its calls, and whether longer runs or more runs would quiet it.
Calibration calibrate(const stats::Comparison& aa, int runs, int max_runs, double slowdown, double confidence,
                      const std::vector<RunResult>* base_runs = nullptr,
                      const std::vector<RunResult>* head_runs = nullptr);

}  // namespace gate::stats
