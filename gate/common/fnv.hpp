// FNV-1a 64: a stable hash of bytes (std::hash is not specified to be stable across library
// versions, and seeds, fingerprints and verdicts must not change because the toolchain did).
// Not a security boundary.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace gate {

constexpr uint64_t kFnv1aOffset = 0xcbf29ce484222325ULL;

// FNV-1a 64 of s; chain calls through h to hash several strings.
inline uint64_t fnv1a64(std::string_view s, uint64_t h = kFnv1aOffset) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// "fnv1a64:<16 hex digits>" of the bytes: notices that a config, a host or a result changed.
inline std::string fnv1a64_fingerprint(std::string_view bytes) {
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(fnv1a64(bytes)));
  return std::string("fnv1a64:") + out;
}

}  // namespace gate
