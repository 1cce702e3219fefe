// Random numbers for the bootstrap: xoshiro256** (fast, 256-bit state) seeded through splitmix64,
// and a stable string hash, so that each test's stream depends only on (seed, function, quantile).
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace gate::stats {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Blackman & Vigna's xoshiro256**: passes BigCrush, ~1 ns per number, which matters because the
// bootstrap draws tens of millions of indexes per comparison. Satisfies UniformRandomBitGenerator.
class Xoshiro256 {
 public:
  using result_type = uint64_t;
  explicit Xoshiro256(uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace gate::stats
