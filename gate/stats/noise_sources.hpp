// Where a test's run-to-run noise comes from, read from its runs: the part that is chance in which
// calls a run made (the quantile's sampling spread, quantile_sampling_sd in power.hpp), which a
// longer run shrinks, and the rest, the state the calls met (the machine's speed, start-up work,
// memory layout), which more runs average out, and a longer run only if the calls are spread over
// it. Used by gate calibrate's advice (calibrate/calibration) and by every report's "inconclusive".
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"

namespace gate::stats {

struct NoiseSources {
  double sampling = 0;       // log-sd per pair from the calls' sampling (0: unknown)
  double calls_per_run = 0;  // median over both sides' runs
  // When in the run the calls were made, as shares of the run's duration (medians over runs of
  // FunctionRun::calls_moment; mean < 0: not known).
  double moment_mean = -1, moment_sd = -1;

  // The share of a per-pair noise (log-sd) that is the calls' sampling, in [0, 1].
  double sampling_share(double noise) const;
  // At least half of it is: more calls a run (a longer workload) would quiet it most.
  bool mostly_sampling(double noise) const { return sampling_share(noise) >= 0.5; }
  // Calls made in a burst (start-up work) meet one state of the machine per run: a longer run does
  // not average it. Known only when the moments are.
  bool in_a_burst() const;
  bool spread_over_the_run() const { return moment_mean >= 0 && !in_a_burst(); }
};

// One function's runs on each side (nullptr: a run lacks it) with those runs' durations in seconds
// (same order), for the quantile at `level` in (0, 1). A side without any histogram: sampling 0.
NoiseSources noise_sources(const std::vector<const FunctionRun*>& base, const std::vector<double>& base_durations,
                           const std::vector<const FunctionRun*>& head, const std::vector<double>& head_durations,
                           double level);

}  // namespace gate::stats
