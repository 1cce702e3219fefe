// The steady (monotonic) clock in seconds, for deadlines and durations: never goes back with NTP.
#pragma once

#include <chrono>

namespace gate {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace gate
