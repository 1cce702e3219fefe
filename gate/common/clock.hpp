// The steady (monotonic) clock in seconds, for deadlines and durations: never goes back with NTP.
// The wall clock as a result records it (iso_now): when a run started, when probes were calibrated.
#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace gate {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds on the steady clock since t0 (a timeout's elapsed time, an attach's duration).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Now, UTC, ISO 8601 to the second: "2026-11-28T23:47:27Z".
inline std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace gate
