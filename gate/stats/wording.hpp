// The few number spellings the statistics' reasons and method line share (compare.cpp,
// family.cpp), until the sentences move out of stats/ into one explain layer.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace gate::stats::wording {

inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
// 0.1 -> "10%", 0.125 -> "12.5%".
inline std::string percent(double fraction) { return fmt("%g%%", std::round(fraction * 1000) / 10); }

}  // namespace gate::stats::wording
