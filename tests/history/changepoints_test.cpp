// E-divisive on synthetic series with known steps: where it finds them, how often (detection
// rate) and how often it finds one where there is none (false-alarm rate). The rates are printed
// (docs/history.md quotes them: ctest --test-dir build -R ChangePoints.Rates -V).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "history/changepoints.hpp"

using gate::history::ChangePointParams;
using gate::history::e_divisive;

namespace {

// level 1 ms, a step x`step` from index `at` (0: none), lognormal noise of sd `noise`.
std::vector<double> series(size_t n, size_t at, double step, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0, 1);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(1e6 * (at && i >= at ? step : 1.0) * std::exp(noise * n01(rng)));
  return v;
}

struct Rates {
  double detected = 0;   // share of series with a change point within 1 of the step
  double false_alarm = 0;  // share with any change point elsewhere
};

Rates rates(size_t n, size_t at, double step, double noise, int trials) {
  int hit = 0, wrong = 0;
  for (int t = 0; t < trials; ++t) {
    const auto cps = e_divisive(series(n, at, step, noise, 1000 + t));
    bool h = false, w = false;
    for (const auto& c : cps) {
      if (at && (c.index + 1 >= at && c.index <= at + 1))
        h = true;
      else
        w = true;
    }
    hit += h;
    wrong += w;
  }
  return {static_cast<double>(hit) / trials, static_cast<double>(wrong) / trials};
}

}  // namespace

TEST(ChangePoints, FindsOneStepAndNamesItsShift) {
  const auto v = series(16, 8, 1.3, 0.03, 7);
  const auto cps = e_divisive(v);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 8u);
  EXPECT_NEAR(cps[0].shift, 1.3, 0.06);
  EXPECT_LE(cps[0].p_value, 0.05);
  EXPECT_FALSE(cps[0].provisional);  // 8 points after it
}

TEST(ChangePoints, SameInputSameAnswer) {
  const auto v = series(40, 20, 1.15, 0.04, 3);
  const auto a = e_divisive(v), b = e_divisive(v);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
  }
}

TEST(ChangePoints, OneSpikeIsNotAChange) {
  auto v = series(20, 0, 1, 0.02, 5);
  v[10] *= 3;  // one slow commit (a busy machine), then back
  EXPECT_TRUE(e_divisive(v).empty());
  v[11] *= 3;  // two
  EXPECT_TRUE(e_divisive(v).empty());
}

TEST(ChangePoints, TwoStepsBothFoundAfterTheFirstInflatesTheSpread) {
  // Up 1.25x at 12, then another 1.2x at 24: the second must not hide behind the first.
  std::vector<double> v = series(36, 12, 1.25, 0.02, 11);
  for (size_t i = 24; i < v.size(); ++i) v[i] *= 1.2;
  const auto cps = e_divisive(v);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 12u);
  EXPECT_EQ(cps[1].index, 24u);
  EXPECT_NEAR(cps[1].shift, 1.2, 0.05);
}

TEST(ChangePoints, AStepAtTheEndIsProvisional) {
  const auto v = series(20, 16, 1.5, 0.02, 9);  // 4 points after it: fewer than confirm_points (6)
  const auto cps = e_divisive(v);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 16u);
  EXPECT_TRUE(cps[0].provisional);
}

TEST(ChangePoints, ShortAndFlatSeriesHaveNone) {
  EXPECT_TRUE(e_divisive({}).empty());
  EXPECT_TRUE(e_divisive({1, 2, 3, 4, 5}).empty());  // shorter than 2 x min_segment
  EXPECT_TRUE(e_divisive(std::vector<double>(30, 1e6)).empty());
}

TEST(ChangePoints, SmallShiftsBelowMinShiftAreDropped) {
  const auto v = series(30, 15, 1.03, 0.002, 4);  // a clear but 3% step
  EXPECT_TRUE(e_divisive(v).empty());
  ChangePointParams p;
  p.min_shift = 0.01;
  const auto cps = e_divisive(v, p);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 15u);
}

// The measured rates (200 series each): printed as a table, and held to bounds that leave room
// for the permutation test's own randomness (fixed seeds: the figures repeat exactly).
TEST(ChangePoints, Rates) {
  const int trials = 200;
  std::printf("series of 30 commits, step at 15; 200 series per cell; detected = change point within 1 commit\n");
  std::printf("%-8s %-6s %-10s %-12s\n", "noise", "step", "detected", "false alarm");
  std::map<std::pair<double, double>, Rates> got;
  for (double noise : {0.02, 0.05, 0.10}) {
    for (double step : {1.0, 1.1, 1.2, 1.3}) {
      const Rates r = rates(30, step == 1.0 ? 0 : 15, step, noise, trials);
      got[{noise, step}] = r;
      std::printf("%-8.2f %-6.2f %-10s %-12.3f\n", noise, step,
                  step == 1.0 ? "-" : std::to_string(r.detected).substr(0, 5).c_str(), r.false_alarm);
    }
  }
  // No step: at most 8% of flat series get a change point (alpha 0.05 plus the min-shift filter).
  for (double noise : {0.02, 0.05, 0.10}) EXPECT_LE((got[{noise, 1.0}].false_alarm), 0.08) << noise;
  // A 1.3x step in 5% noise (a commit median on a noisy machine) is found nearly always, in place.
  EXPECT_GE((got[{0.05, 1.3}].detected), 0.95);
  EXPECT_GE((got[{0.02, 1.1}].detected), 0.95);
}
