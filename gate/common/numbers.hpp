// Small numeric helpers shared across gate's folders: NaN for "no value", the median and the upper
// median (two different figures for an even count, so two names).
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

namespace gate {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The median: the mean of the two middle values for an even count; 0 for no values.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The upper median: the larger of the two middle values for an even count (always one of the
// values, never a mean of two); 0 for no values.
inline double upper_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace gate
