// What a branch changed in its verdict settings against a reference commit's, as values: the
// quantiles, the bands that moved (grouped by how they moved), and the calls and insufficient-data
// policies. verdict/threshold_diff computes it from two sets of options; explain/threshold_diff_text
// words it.
#pragma once

#include <string>
#include <vector>

#include "stats/compare.hpp"

namespace gate::stats {

struct BandChange {
  Band before, after;
  std::vector<std::string> where;  // "FUNCTION QUANTILE" pairs that moved from `before` to `after`
};

struct ThresholdDiff {
  std::vector<std::string> quantiles_before, quantiles_after;  // equal: unchanged
  std::vector<BandChange> bands;                               // in the order first met
  double calls_change_before = 0, calls_change_after = 0;      // fractions (0.5 = 50%)
  bool fail_on_calls_before = false, fail_on_calls_after = false;
  bool fail_on_insufficient_before = false, fail_on_insufficient_after = false;
  bool empty() const {
    return quantiles_before == quantiles_after && bands.empty() && calls_change_before == calls_change_after &&
           fail_on_calls_before == fail_on_calls_after && fail_on_insufficient_before == fail_on_insufficient_after;
  }
};

}  // namespace gate::stats
