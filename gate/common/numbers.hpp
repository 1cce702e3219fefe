// Small numeric helpers shared across gate's folders: NaN for "no value", the median and the upper
// median (two different figures for an even count, so two names), a share written "10%" or 0.1.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace gate {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

namespace detail {
// The median of nothing is no number: a caller that returned 0 for it reported a speed, a cost or
// a count that was never measured. Callers check for an empty sample and say what it means there.
[[noreturn]] inline void no_values(const char* what) {
  throw Error::make(what, "of no values", "a bug in gate: its caller must handle an empty sample first",
                    ExitCode::kMeasure);
}
}  // namespace detail

// The median of values already sorted ascending (no copy): the mean of the two middle values for
// an even count. Throws gate::Error for no values.
inline double median_of_sorted(const std::vector<double>& v) {
  const size_t n = v.size();
  if (n == 0) detail::no_values("median");
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The median: the mean of the two middle values for an even count. Throws gate::Error for no values.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return median_of_sorted(v);
}

// The upper median: the larger of the two middle values for an even count (always one of the
// values, never a mean of two: a count of pairs or executions stays a whole number). Throws
// gate::Error for no values.
template <typename T>
T upper_median(std::vector<T> v) {
  if (v.empty()) detail::no_values("upper median");
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}
inline double upper_median(std::vector<double> v) { return upper_median<double>(std::move(v)); }

// A share as a person writes it: "10%" or "0.1" -> 0.1; nothing else may follow the number (no
// space before the %). nullopt when the text is not one; the caller raises its own error, naming
// its flag or key.
inline std::optional<double> parse_fraction(const std::string& text) {
  const char* s = text.c_str();
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (end == s) return std::nullopt;
  if (*end == '%') {
    v /= 100;
    ++end;
  }
  if (*end) return std::nullopt;
  return v;
}

}  // namespace gate
