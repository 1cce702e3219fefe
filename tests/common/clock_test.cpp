// gate/common/clock.hpp: the steady clock never goes back (deadlines rely on it).
#include "common/clock.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

TEST(Clock, SteadySecondsDoNotGoBack) {
  const double a = now_s();
  const double b = now_s();
  EXPECT_GT(a, 0);
  EXPECT_GE(b, a);
}

}  // namespace
}  // namespace gate
