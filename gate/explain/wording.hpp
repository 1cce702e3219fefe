// The number spellings every sentence of explain/ shares.
#pragma once

#include <string>

#include "common/format.hpp"  // fmt, percent_to_tenth

namespace gate::explain {

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
