// How fast the machine ran each run, estimated from all traced functions at once, so that a
// comparison can take the machine's speed swings out of every function's per-run values.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gate::stats {

// Why: on a shared CI runner the CPU's speed swings ~1.4x on a 0.1-1 s timescale, and every
// function in a run moves with it. Measured on this project's 2-vCPU machine kind (gate ab A/A,
// shop example, 30 pairs, tests/bench/noise_lab.py), the per-run p50 of a small CPU-bound
// function varies with a log-sd of 0.18-0.26 run to run, and by 0.04-0.08 once each run is
// divided by the speed of that run's *other* functions: most run-to-run noise is common mode.
//
// The factor of run r for function f is the median over the run's other functions g of
// log x[r][g] - ref[g], ref[g] being g's median over every run of both sides. Leaving f out keeps
// a slowdown of f from cancelling itself; the median keeps a change to a few functions (f and
// its callers) from moving the factor. A change that slows more than half of the functions
// alike moves the factor itself: that is what the common-mode test (common_shift) reports.
// Why speed normalization was asked for but not used, as values (explain::speed_not_used says it).
struct SpeedNotUsed {
  enum class Kind : uint8_t {
    kUsed,             // nothing to say: used, or not asked for
    kTooFewFunctions,  // run `run` (1-based) of `side` has `functions` with enough calls, `needed` needed
    kNoRuns,           // a side has no runs
  };
  Kind kind = Kind::kUsed;
  std::string side;  // "base" or "head"
  size_t run = 0;
  size_t functions = 0;
  size_t needed = 0;
};

struct SpeedFactors {
  // False when some run has fewer than kMinFunctions functions with a value: the factor of a
  // median over 1-3 functions adds more noise than it removes. why_not then says which run.
  bool usable = false;
  SpeedNotUsed why_not;
  // Per side (0 base, 1 head), per run: the factor over all functions (for common_shift).
  std::vector<double> all[2];

  static constexpr size_t kMinFunctions = 5;

  // The factor of run `run` of `side` with function `function` left out (0 when !usable).
  double leave_out(int side, size_t run, size_t function) const;

  // Internals of leave_out: per side and run, the sorted deviations and, per function, where its
  // own deviation stands in that order (npos when the run has no value for it).
  std::vector<std::vector<double>> sorted[2];
  std::vector<std::vector<size_t>> position[2];
};

// values[side][run][function]: log of a central per-run statistic (the p50), NaN where the run
// has too few calls of the function. Both sides must list the same functions in the same order.
SpeedFactors estimate_speed(const std::vector<std::vector<double>> values[2]);

}  // namespace gate::stats
