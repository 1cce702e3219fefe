// The number and text spellings shared across gate: padding for aligned columns, hex addresses,
// one printf'd double, percentages (each rounding under its own name). Durations: report::format_duration.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gate {

inline std::string pad_right(std::string s, size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}
inline std::string pad_left(std::string s, size_t w) {
  if (s.size() < w) s.insert(0, w - s.size(), ' ');
  return s;
}

// 0x401000
inline std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
// A 32-bit word, all 8 digits: 0xfffffff1 (a .gopclntab magic); zeros kept so words line up.
inline std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}
// A signed offset: 0x1f, -0x8.
inline std::string signed_hex(int64_t v) {
  char b[24];
  const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::snprintf(b, sizeof b, v < 0 ? "-0x%llx" : "0x%llx", static_cast<unsigned long long>(magnitude));
  return b;
}

// One double through a printf format: fmt("%.3f", x).
inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// All significant digits ("%g"): 0.05 -> "5%", 0.12345 -> "12.345%" (thresholds, as configured).
inline std::string percent(double fraction) { return fmt("%g", fraction * 100) + "%"; }
// Rounded to a tenth of a percent: 0.1 -> "10%", 0.125 -> "12.5%", 0.12345 -> "12.3%".
inline std::string percent_to_tenth(double fraction) { return fmt("%g%%", std::round(fraction * 1000) / 10); }
// A part of a whole to a tenth of a percent: (1, 8) -> "12.5%"; "-" when the whole is not positive
// (no time measured: no share to show).
inline std::string percent_of(double part, double whole) { return whole <= 0 ? "-" : fmt("%.1f%%", 100 * part / whole); }
// A change, signed, whole percent: 0.052 -> "+5%", -0.3 -> "-30%".
inline std::string signed_percent(double change) { return fmt("%+.0f%%", change * 100); }
// Bytes in MiB to a tenth: "12.5 MiB"; UINT64_MAX (no limit: RLIMIT_INFINITY) is "unlimited".
inline std::string mib(uint64_t bytes) {
  if (bytes == UINT64_MAX) return "unlimited";
  return fmt("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}
// Nanoseconds as microseconds, 3 significant digits: 11300 -> "11.3us"; a change, signed: "+11.3us".
inline std::string micros(double ns) { return fmt("%.3gus", ns / 1000); }
inline std::string signed_micros(double ns) { return fmt("%+.3gus", ns / 1000); }
// {"a", "b"} -> "a, b" (or with `sep` between them).
inline std::string join(const std::vector<std::string>& words, const char* sep = ", ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}
// 1 -> "1 run", 3 -> "3 runs" (a word whose plural adds an s)
inline std::string plural(size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace gate
