// Human formatting shared by the CLI and the reports: durations with units, padded columns.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace gate {

// 812ns, 12.3us, 4.56ms, 1.23s; "-" for NaN.
inline std::string format_ns(double ns) {
  if (std::isnan(ns)) return "-";
  char b[32];
  if (ns < 1e3) snprintf(b, sizeof b, "%.0fns", ns);
  else if (ns < 1e4) snprintf(b, sizeof b, "%.2fus", ns / 1e3);
  else if (ns < 1e6) snprintf(b, sizeof b, "%.1fus", ns / 1e3);
  else if (ns < 1e7) snprintf(b, sizeof b, "%.2fms", ns / 1e6);
  else if (ns < 1e9) snprintf(b, sizeof b, "%.1fms", ns / 1e6);
  else snprintf(b, sizeof b, "%.2fs", ns / 1e9);
  return b;
}

inline std::string pad_right(std::string s, size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}
inline std::string pad_left(std::string s, size_t w) {
  if (s.size() < w) s.insert(0, w - s.size(), ' ');
  return s;
}

}  // namespace gate
