// Shell words: a path or a pattern quoted so that a printed command (a report's "reproduce:" line,
// a pprof command in a log) can be pasted into sh as it is.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace gate {

// One shell word: unchanged when it is only safe characters, else single-quoted.
inline std::string shell_quote(std::string_view s) {
  if (s.empty()) return "''";
  const bool safe = std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-./:=@%+,").find(c) != std::string_view::npos;
  });
  if (safe) return std::string(s);
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

// Words joined by spaces, each shell-quoted.
inline std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

}  // namespace gate
