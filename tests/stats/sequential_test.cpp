// Sequential p-values for measure-until-decided: checked against a simulation of the random walk
// they model, and against the loop they are for (a t test at every look from 10 to 30 units).
#include "stats/sequential.hpp"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "stats/distributions.hpp"
#include "stats/power.hpp"

namespace gate::stats {
namespace {

TEST(SequentialLooks, OneLookLeavesThePValueAlone) {
  const SequentialLooks one(10, 10);
  EXPECT_EQ(one.looks(), 1);
  for (double p : {0.5, 0.025, 1e-6, 1e-30}) EXPECT_EQ(one.adjust(p), p);
  EXPECT_NEAR(one.crossing_probability(1.96), 0.025, 1e-3);
}

// P(max over looks 10..30 of S_n / sqrt(n) >= c) by numerical integration, against 200,000
// simulated walks: within 4 standard errors of the simulation.
TEST(SequentialLooks, CrossingProbabilityMatchesSimulatedWalks) {
  const SequentialLooks looks(10, 30);
  constexpr int kWalks = 200000;
  std::mt19937_64 rng(20261123);
  std::normal_distribution<double> step;
  const double cs[] = {1.5, 1.96, 2.5, 3.0};
  int hits[4] = {0, 0, 0, 0};
  for (int w = 0; w < kWalks; ++w) {
    double s = 0, best = -1e9;
    for (int n = 1; n <= 30; ++n) {
      s += step(rng);
      if (n >= 10) best = std::max(best, s / std::sqrt(static_cast<double>(n)));
    }
    for (int i = 0; i < 4; ++i) hits[i] += best >= cs[i];
  }
  for (int i = 0; i < 4; ++i) {
    const double sim = static_cast<double>(hits[i]) / kWalks;
    const double se = std::sqrt(sim * (1 - sim) / kWalks);
    const double g = looks.crossing_probability(cs[i]);
    std::printf("looks 10..30: P(reach %.2f) integrated %.5f, simulated %.5f; one look %.5f\n", cs[i], g, sim,
                normal_upper_tail(cs[i]));
    EXPECT_NEAR(g, sim, 4 * se + 1e-4) << "c = " << cs[i];
    EXPECT_GT(g, normal_upper_tail(cs[i]));  // more looks, more chances
  }
}

TEST(SequentialLooks, AdjustedPValuesAreMonotoneAndAtLeastTheLookOnes) {
  const SequentialLooks looks(10, 30);
  double previous = 0;
  for (double lp = -40; lp <= -0.05; lp += 0.05) {
    const double p = std::pow(10.0, lp);
    const double a = looks.adjust(p);
    EXPECT_GE(a, p);
    EXPECT_LE(a, 1.0);
    EXPECT_GE(a, previous * (1 - 1e-9)) << p;
    previous = a;
  }
  // Interpolation against direct integration where a decision is made.
  for (double c : {1.8, 2.2, 2.9, 3.6}) {
    const double p = normal_upper_tail(c);
    EXPECT_NEAR(looks.adjust(p) / looks.crossing_probability(c), 1.0, 0.03) << c;
  }
}

// The level a look must reach: its sequential p is the plan's alpha; for looks 10..30 at 2.5%
// a deviate of ~2.5, and the detectable effect grows accordingly.
TEST(SequentialLooks, PerLookLevelAndPower) {
  const SequentialLooks& looks = sequential_looks(10, 30);
  EXPECT_EQ(&looks, &sequential_looks(10, 30));  // cached
  for (double a : {0.025, 0.0025, 2.5e-5}) {
    const double l = looks.per_look_level(a);
    EXPECT_LT(l, a);
    EXPECT_NEAR(looks.adjust(l) / a, 1.0, 1e-6) << a;
  }
  const double z = -normal_quantile(looks.per_look_level(0.025));
  std::printf("looks 10..30, alpha 2.5%%: per-look deviate %.3f (one look: 1.960)\n", z);
  EXPECT_GT(z, 2.3);
  EXPECT_LT(z, 2.7);
  EXPECT_EQ(sequential_looks(10, 10).per_look_level(0.025), 0.025);
  PowerModel one{0.95, 4, 0.8}, plan{0.95, 4, 0.8, 10, 30};
  EXPECT_GT(detectable_ratio(0.08, 20, 0.05, plan), detectable_ratio(0.08, 20, 0.05, one));
  EXPECT_LT(look_level(plan), look_level(one));
}

// A plan too long to integrate in reasonable time (max_runs is allowed up to 10,000) falls back to
// Bonferroni over its looks: valid whatever the correlation, and stricter than the walk.
TEST(SequentialLooks, LongPlansUseBonferroni) {
  const SequentialLooks& looks = sequential_looks(10, 500);
  ASSERT_TRUE(looks.bonferroni());
  EXPECT_EQ(looks.looks(), 491);
  EXPECT_DOUBLE_EQ(looks.adjust(1e-6), 491e-6);
  EXPECT_EQ(looks.adjust(0.01), 1.0);
  EXPECT_NEAR(looks.per_look_level(0.025), 0.025 / 491, 1e-12);
  EXPECT_FALSE(sequential_looks(20, 64).bonferroni());  // the boundary: 64 is integrated, 65 is not
  EXPECT_TRUE(sequential_looks(10, 65).bonferroni());
  // Integrated plans are never stricter than Bonferroni.
  const SequentialLooks& walk = sequential_looks(10, 30);
  for (double p : {0.02, 1e-3, 1e-6}) EXPECT_LE(walk.adjust(p), p * walk.looks() * (1 + 1e-9)) << p;
}

// The loop gate runs: pairs' log ratios with noise 1, a true shift exactly at the threshold, a
// one-sided Student t test after 10, 11, ..., 30 pairs, stopping at the first rejection. Unadjusted
// it rejects ~8.7% of the time (nominal 2.5%); with sequential p-values the rate must be back near
// 2.5% (the walk model is Gaussian, the test Student t: allowed up to 3.5%). 20,000 trials.
TEST(SequentialLooks, KeepTheFalseAlarmRateOfTheUntilDecidedLoop) {
  const SequentialLooks looks(10, 30);
  constexpr int kTrials = 20000;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise;
  int naive = 0, adjusted = 0;
  for (int t = 0; t < kTrials; ++t) {
    double s = 0, ss = 0;
    bool naive_hit = false, adjusted_hit = false;
    for (int n = 1; n <= 30; ++n) {
      const double x = noise(rng);
      s += x;
      ss += x * x;
      if (n < 10) continue;
      const double mean = s / n, var = (ss - n * mean * mean) / (n - 1);
      const double p = student_t_upper_tail(mean / std::sqrt(var / n), n - 1);
      naive_hit |= p < 0.025;
      adjusted_hit |= looks.adjust(p) < 0.025;
    }
    naive += naive_hit;
    adjusted += adjusted_hit;
  }
  const double naive_rate = 100.0 * naive / kTrials, adjusted_rate = 100.0 * adjusted / kTrials;
  std::printf("at the threshold, looks 10..30: rejected %.2f%% unadjusted, %.2f%% with sequential p (nominal 2.5%%)\n",
              naive_rate, adjusted_rate);
  EXPECT_GT(naive_rate, 6.0);  // the problem is real
  EXPECT_LE(adjusted_rate, 3.5);
  EXPECT_GE(adjusted_rate, 1.5);  // and not bought with a far stricter test
}

}  // namespace
}  // namespace gate::stats
