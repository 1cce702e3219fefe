// Modes across executions: a benchmark whose processes each run at one of two speeds (issue 54: a
// library's MB/s at 320-350 or at 550-650, process by process), found from the executions' values.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace gate::stats {

// Two modes of a set of positive values, on the log scale: the best split into a lower and an
// upper group (least squares within the groups, as 1-D k-means with k = 2 finds it exactly), kept
// only when the two groups are modes and not one skewed spread:
//   - at least kMinValues values, and each group at least kMinModeValues and kMinModeShare of them;
//   - Ashman's D (the centers' distance over the groups' root-mean-square sd) at least kMinSeparation;
//   - a valley: at most kMaxValleyShare of all values in the middle half between the two centers;
//   - the centers at least min_ratio apart (a split finer than the band changes no verdict).
// Why these: on simulated executions (tests/stats/benchmark_modes_test.cpp, 400 sets each) a
// lognormal spread of 3% is split in 0.7% of sets of 10 values and in none of 35, nor with a heavy
// tail; two modes 1.8x apart (40% in the slow one, 3-5% spread each: the case) are found in
// 59% of sets of 10, 90% of 16 and every set of 35. A tight speed with a neighbour's bursts (30% of
// executions 1-2x slower) is split in 10-15% of sets of 16-35: a burst that slows several
// executions alike is a second speed of the machine, and is named as one; the fold that decides
// stays the fastest execution unless the modes disagree (stats/benchmark_tests.cpp).
struct ModeSplit {
  bool found = false;
  double split = 0;         // log value between the groups: a value below it is in the lower mode
  int lower = 0, upper = 0; // values in each
  double lower_log = 0, upper_log = 0;  // the groups' mean log values
  double separation = 0;    // Ashman's D
};

inline constexpr size_t kMinValues = 8;
inline constexpr int kMinModeValues = 4;
inline constexpr double kMinModeShare = 0.10;
inline constexpr double kMinSeparation = 3.5;
inline constexpr double kMaxValleyShare = 0.05;

ModeSplit find_modes(std::span<const double> values, double min_ratio);

// Which mode a value is in (0: lower, 1: upper) by a split of find_modes.
inline int mode_of(double value_log, const ModeSplit& s) { return value_log < s.split ? 0 : 1; }

// A side's executions of one metric labelled by mode, per run and execution in the order they ran:
// 0 the fast mode (less time, or more throughput: `higher_is_better`), 1 the slow one.
using ModeLabels = std::vector<std::vector<int>>;
ModeLabels label_modes(const std::vector<std::vector<double>>& runs, const ModeSplit& s, bool higher_is_better);

// One unit's executions folded per mode: each mode's best execution (the least time, or the most
// throughput), weighted by the mode's share of the unit's executions, as a geometric mean. With one
// mode that is the unit's best execution (results/unit_merge.cpp's fold); with two it keeps the fold's
// immunity to a neighbour's burst inside each mode while the unit's mix of modes counts as the
// processes' mix does in runs without gate. best_per_mode[m] receives mode m's best value (NaN when
// the unit has none of it); `labels` as label_modes gives them (empty: all in the fast mode).
double fold_per_mode(std::span<const double> executions, std::span<const int> labels, bool higher_is_better,
                     double best_per_mode[2]);

}  // namespace gate::stats
