// gate/common/numbers.hpp: the median and the upper median differ for an even count, neither has a
// value for no values (an error, never 0), and a share is read from "10%" or "0.1".
#include "common/numbers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gate {
namespace {

TEST(Numbers, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_DOUBLE_EQ(median_of_sorted({1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(median_of_sorted({1, 5, 9}), 5);
}

// A median of nothing was 0: a cost, a speed or a count never measured read as measured.
TEST(Numbers, MedianOfNothingIsAnError) {
  EXPECT_THROW(median({}), Error);
  EXPECT_THROW(median_of_sorted({}), Error);
  EXPECT_THROW(upper_median(std::vector<double>{}), Error);
  EXPECT_THROW(upper_median(std::vector<int>{}), Error);
  try {
    median({});
  } catch (const Error& e) {
    EXPECT_EQ(e.object(), "median");
    EXPECT_EQ(e.cause(), "of no values");
  }
}

TEST(Numbers, UpperMedianIsOneOfTheValues) {
  EXPECT_DOUBLE_EQ(upper_median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(upper_median({4, 1, 3, 2}), 3);
  EXPECT_DOUBLE_EQ(upper_median({1, 10}), 10);
  // Whole counts stay whole (executions per unit, pairs needed): {2, 9, 4, 7} -> 7, not 5.5.
  EXPECT_EQ(upper_median(std::vector<int>{2, 9, 4, 7}), 7);
  EXPECT_EQ(upper_median(std::vector<int>{5}), 5);
}

TEST(Numbers, ParseFractionReadsPercentOrFraction) {
  EXPECT_DOUBLE_EQ(*parse_fraction("10%"), 0.1);
  EXPECT_DOUBLE_EQ(*parse_fraction("0.1"), 0.1);
  EXPECT_DOUBLE_EQ(*parse_fraction("2.5%"), 0.025);
  EXPECT_DOUBLE_EQ(*parse_fraction("150%"), 1.5);  // the caller checks its range
  EXPECT_DOUBLE_EQ(*parse_fraction("-5%"), -0.05);
  for (const char* bad : {"", "%", "ten", "10 %", "10%%", "10%x", "0.1x", "10pct"})
    EXPECT_FALSE(parse_fraction(bad).has_value()) << bad;
}

TEST(Numbers, NaNMeansNoValue) { EXPECT_TRUE(std::isnan(kNaN)); }

}  // namespace
}  // namespace gate
