// Change points in one series (a function's quantile over commits on one machine): E-divisive
// means (Matteson and James 2014, as MongoDB runs it: Daly et al., ICPE 2020) with a permutation
// test. Pure: no database, no I/O; the parameters and why they are what they are in
// docs/history.md ("Change points").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gate::history {

struct ChangePointParams {
  // Significance of a split: p-value of the permutation test at most this. MongoDB's 0.05.
  double alpha = 0.05;
  // Permutations per tested split. 199 gives p-values in steps of 1/200, fine enough to tell
  // 0.05 apart; MongoDB uses 100. Each costs O(n^2) for a segment of n points.
  int permutations = 199;
  // Fewest points on each side of a change: 3, so one spike (or two) cannot be a segment of its own.
  int min_segment = 3;
  // A change point with fewer points after it than this is provisional: the next commits may show
  // that it was a passing state of the machine, not a step (2 x min_segment).
  int confirm_points = 6;
  // Steps smaller than this relative shift are dropped (merged with their neighbour), as Otava
  // drops weak ones: run-to-run noise of a shared machine is a few percent.
  double min_shift = 0.05;
  // The permutations' seed: the same history gives the same answer every time.
  uint64_t seed = 1;
};

struct ChangePoint {
  size_t index = 0;        // the first point after the change
  double p_value = 1;      // of the permutation test that accepted it
  double statistic = 0;    // the energy statistic Q of the split
  double before = 0;       // median of the segment before it
  double after = 0;        // median of the segment after it
  double shift = 1;        // after / before
  bool provisional = false;
};

// Change points of values (positive: latencies; compared on a log scale so that a shift is a
// ratio whatever the level), ascending by index.
std::vector<ChangePoint> e_divisive(const std::vector<double>& values, const ChangePointParams& p = {});

// The median of values[begin, end) (NaN when empty).
double median_of(const std::vector<double>& values, size_t begin, size_t end);

}  // namespace gate::history
