// Simulated sampled-instrument comparisons at the band's edge (issue 54): sparse, unequal,
// overdispersed counts run through the real stats::sampled_test and decided alone, to read its
// one-sided false-regression rate. Shared by the unit test and tests/stats/pooled_edge_sim.
#pragma once

#include <cstdint>

namespace gate::testing {

struct CountSimSetting {
  double base_samples = 2;   // mean samples a base unit counts
  double head_calls = 4;     // the head's calls a unit over the base's: its counts are this x the ratio x base's
  double ratio = 1.1;        // the true head/base CPU per call
  double band = 0.1;         // regression and improvement band
  int pairs = 10;
  double overdispersion = 0.2;  // a unit's rate times a gamma factor of this sd (its own machine moment)
  double slow_fraction = 0.3;   // pairs in a slow spell (both sides 1.4x: gate ab's pairs meet it alike)
  double slow_factor = 1.4;
  // > 0: each unit gets a speed factor (log, normal of this sd) read from other executions than its
  // samples (gate ab's probed executions, where the sampled ones ran apart), so unrelated to its
  // counts; the test normalizes by them with a fitted power, as gate ab does by default.
  double unrelated_speed_sd = 0;
};

struct CountSimResult {
  int trials = 0;
  int regressions = 0;    // decided a regression (one test, one look, level (1 - confidence) / 2)
  int improvements = 0;
  int unchanged = 0;
  int undecided = 0;      // inconclusive, suspect or insufficient data
  int exact = 0;          // trials that took the exact test (a side counted none)
  int pooled = 0;         // trials that pooled sparse counts
  int pooled_regressions = 0;  // of regressions, those of pooled trials
  double rate() const { return trials ? static_cast<double>(regressions) / trials : 0; }
};

// `trials` comparisons of `s` (deterministic for a seed).
CountSimResult simulate_counts(const CountSimSetting& s, int trials, uint64_t seed);

}  // namespace gate::testing
