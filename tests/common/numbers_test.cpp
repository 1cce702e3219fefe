// gate/common/numbers.hpp: the median and the upper median differ for an even count.
#include "common/numbers.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gate {
namespace {

TEST(Numbers, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(Numbers, UpperMedianIsOneOfTheValues) {
  EXPECT_DOUBLE_EQ(upper_median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(upper_median({4, 1, 3, 2}), 3);
  EXPECT_DOUBLE_EQ(upper_median({1, 10}), 10);
  EXPECT_DOUBLE_EQ(upper_median({}), 0);
}

TEST(Numbers, NaNMeansNoValue) { EXPECT_TRUE(std::isnan(kNaN)); }

}  // namespace
}  // namespace gate
