// Padding for aligned text columns (durations are formatted by report::format_duration).
#pragma once

#include <string>

namespace gate {

inline std::string pad_right(std::string s, size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}
inline std::string pad_left(std::string s, size_t w) {
  if (s.size() < w) s.insert(0, w - s.size(), ' ');
  return s;
}

}  // namespace gate
