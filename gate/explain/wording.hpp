// The number spellings every sentence of explain/ shares.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace gate::explain {

inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
// 0.1 -> "10%", 0.125 -> "12.5%".
inline std::string percent(double fraction) { return fmt("%g%%", std::round(fraction * 1000) / 10); }
// [0.981, 1.042]
inline std::string interval_text(double lo, double hi) { return "[" + fmt("%.3f", lo) + ", " + fmt("%.3f", hi) + "]"; }
// 950 -> "950 ns", 12345 -> "12.3 us"
inline std::string duration_text(double ns) {
  if (ns < 1e3) return fmt("%.0f ns", ns);
  if (ns < 1e6) return fmt("%.3g us", ns / 1e3);
  if (ns < 1e9) return fmt("%.3g ms", ns / 1e6);
  return fmt("%.3g s", ns / 1e9);
}

}  // namespace gate::explain
