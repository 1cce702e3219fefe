// gate/common/clock.hpp: the steady clock never goes back (deadlines rely on it); the wall clock as
// results record it.
#include "common/clock.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace gate {
namespace {

TEST(Clock, SteadySecondsDoNotGoBack) {
  const double a = now_s();
  const double b = now_s();
  EXPECT_GT(a, 0);
  EXPECT_GE(b, a);
}

TEST(Clock, SecondsSinceCountsTheSteadyClock) {
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double s = seconds_since(t0);
  EXPECT_GE(s, 0.020);  // a sleep lasts at least its time; no upper bound (a loaded machine)
  EXPECT_GE(seconds_since(t0), s);
  EXPECT_LT(seconds_since(std::chrono::steady_clock::now()), s);
}

TEST(Clock, IsoNowIsUtcToTheSecond) {
  const std::string t = iso_now();
  ASSERT_EQ(t.size(), 20u) << t;  // 2026-11-28T23:47:27Z
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
}

}  // namespace
}  // namespace gate
