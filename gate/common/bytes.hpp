// Unsigned integers of n bytes read from a byte buffer, little- or big-endian: Go's pclntab and ELF
// sections (analysis/pclntab.cpp, analysis/inlining.cpp), whatever the host's own order.
#pragma once

#include <cstdint>

namespace gate {

inline uint64_t load_le(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

inline uint64_t load_be(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

}  // namespace gate
