// Synthetic measurements for the statistics tests and benchmark: runs of lognormal call latencies
// with run-to-run noise like a shared CI runner's, bucketed into real LatencyHistograms.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/result.hpp"
#include "stats/compare.hpp"

namespace gate::testing {

struct SyntheticFunction {
  std::string name;
  double median_ns = 50'000;   // median call latency
  double sigma = 0.5;          // log-space spread of one run's calls
  double calls_per_run = 2000;
  double scale = 1.0;          // multiplies every latency (a head with a 10% slowdown: 1.10)
};

struct SyntheticNoise {
  // Each run's latencies are multiplied by a lognormal factor with this log-space sigma (CPU
  // frequency, neighbours, cache state): 3-5% on shared CI runners.
  double run_sigma = 0.04;
  // true: one factor per run shared by all functions (a machine-wide slowdown); false: an
  // independent factor per run and function (harsher for the multiple-testing correction, since
  // the tests of one split are then independent).
  bool shared_per_run = false;
  double calls_jitter = 0.05;  // calls per run vary uniformly by +-5%
  // The machine's speed state per run, shared by every function of the run: with probability
  // slow_fraction the run is slow_factor slower (a CI runner's two speed states, ~1.4x apart on
  // this project's machine kind; see shared notes, noise-and-probe-cost.md).
  double slow_fraction = 0;
  double slow_factor = 1.4;
  // Seed of the machine's states. Two sides generated with the same machine_seed (!= 0) meet the
  // same state in run r, as gate ab's back-to-back runs do; 0 draws them from the side's seed.
  uint64_t machine_seed = 0;
};

// `runs` runs of every function; deterministic for a seed. variant is stored in RunResult::variant.
std::vector<RunResult> synthetic_runs(const std::vector<SyntheticFunction>& functions, int runs,
                                      const SyntheticNoise& noise, uint64_t seed, const std::string& variant = "");
// A ResultFile declaring the functions (no runs), with a plausible context.
ResultFile synthetic_meta(const std::vector<SyntheticFunction>& functions);
// n functions "main.f00".. with medians spread over 1 us .. 1 ms.
std::vector<SyntheticFunction> synthetic_functions(int n, double calls_per_run = 2000);

// A synthetic A/A of 8 functions (synthetic_functions), 12 runs a side, each run's latencies moved by
// `run_sigma`, compared at p50 with a 5% band: what gate calibrate's figures and text are tested on.
struct SyntheticAA {
  std::vector<RunResult> base, head;
  stats::Comparison comparison;
};
SyntheticAA synthetic_aa(double run_sigma, double calls_per_run, uint64_t seed);
// Every run of `a` made 1 s long and its calls' moments recorded: "burst" puts every call at 5 ms
// (as start-up work is), "spread" spreads them evenly over the run.
void time_calls(SyntheticAA& a, const std::string& when);

}  // namespace gate::testing
