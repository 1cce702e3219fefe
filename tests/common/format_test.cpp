// gate/common/format.hpp: the spellings every folder shares, each rounding under its own name.
#include "common/format.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace gate {
namespace {

TEST(Format, PaddingAndHex) {
  EXPECT_EQ(pad_right("ab", 4), "ab  ");
  EXPECT_EQ(pad_left("ab", 4), "  ab");
  EXPECT_EQ(pad_left("abcde", 4), "abcde");
  EXPECT_EQ(hex(0x401000), "0x401000");
  EXPECT_EQ(hex(UINT64_MAX), "0xffffffffffffffff");
  // Offsets in code_diff: signed, the sign outside the 0x.
  EXPECT_EQ(signed_hex(-8), "-0x8");
  EXPECT_EQ(signed_hex(std::numeric_limits<int64_t>::min()), "-0x8000000000000000");
  EXPECT_EQ(fmt("%.0f ns", 949.6), "950 ns");
  // A 32-bit word keeps its 8 digits (Go's .gopclntab magics): hex() would drop the zeros.
  EXPECT_EQ(hex32(0xfffffff1), "0xfffffff1");
  EXPECT_EQ(hex32(0xf1), "0x000000f1");
}

TEST(Format, PercentOfAWhole) {
  EXPECT_EQ(percent_of(1, 8), "12.5%");
  EXPECT_EQ(percent_of(2, 3), "66.7%");
  EXPECT_EQ(percent_of(0, 5), "0.0%");
  EXPECT_EQ(percent_of(1, 0), "-");  // nothing measured: no share
  EXPECT_EQ(percent_of(1, -1), "-");
}

// Three percentages, three roundings: each call site keeps its own output byte for byte.
TEST(Format, PercentagesEachWithItsRounding) {
  struct Case {
    double x;
    const char* all_digits;  // percent: thresholds as configured
    const char* to_tenth;    // percent_to_tenth: explain's sentences
    const char* signed_;     // signed_percent: a change
  };
  const Case cases[] = {
      {0.03, "3%", "3%", "+3%"},
      {0.125, "12.5%", "12.5%", "+12%"},
      {0.12345, "12.345%", "12.3%", "+12%"},
      {0.99996, "99.996%", "100%", "+100%"},
      {-0.3, "-30%", "-30%", "-30%"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(percent(c.x), c.all_digits) << c.x;
    EXPECT_EQ(percent_to_tenth(c.x), c.to_tenth) << c.x;
    EXPECT_EQ(signed_percent(c.x), c.signed_) << c.x;
  }
}

TEST(Format, WordsAndUnits) {
  EXPECT_EQ(plural(1, "run"), "1 run");
  EXPECT_EQ(plural(0, "run"), "0 runs");
  EXPECT_EQ(plural(3, "declared function"), "3 declared functions");
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({"x", "y"}, "; "), "x; y");
  EXPECT_EQ(join({}), "");
  EXPECT_EQ(mib(13107200), "12.5 MiB");
  EXPECT_EQ(mib(UINT64_MAX), "unlimited") << "RLIMIT_INFINITY";
  EXPECT_EQ(micros(11300), "11.3us");
  EXPECT_EQ(micros(950), "0.95us");
  EXPECT_EQ(signed_micros(11300), "+11.3us");
  EXPECT_EQ(signed_micros(-2500), "-2.5us");
}

}  // namespace
}  // namespace gate
