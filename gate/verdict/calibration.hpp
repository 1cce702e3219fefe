// What an A/A comparison says about a workload on this machine (gate calibrate): per function and
// quantile the measured noise, the smallest slowdown caught at the config's runs and max_runs, the
// pairs a given slowdown needs, and the runs/max_runs to suggest.
#pragma once

#include <string>
#include <vector>

#include "stats/compare.hpp"

namespace gate::verdict {

struct CalibrationRow {
  std::string function, quantile;
  double noise = 0;              // log-sd per pair
  double caught_at_runs = 0;     // smallest ratio caught at `runs` pairs (0: not computable)
  double caught_at_max = 0;      // ... at `max_runs` pairs
  double target = 0;             // the slowdown sized for (ratio)
  int pairs_for_target = 0;      // pairs needed for it (max_pairs + 1: more than max_pairs)
  bool false_regression = false; // this A/A test read "regression"
};

struct Calibration {
  std::vector<CalibrationRow> rows;  // tested quantiles only, in the comparison's order
  int false_regressions = 0;
  int suggested_runs = 0;            // half of the tests decide by then (0: nothing tested)
  int suggested_max_runs = 0;        // 90% of them
  static constexpr int kMaxPairs = 1000;
};

// `slowdown` as a fraction (0.2 = 20%); 0 sizes each test for twice its regression threshold.
Calibration calibrate(const stats::Comparison& aa, int runs, int max_runs, double slowdown, double confidence);

}  // namespace gate::verdict
