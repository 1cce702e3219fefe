// Tests of stats/power: the detectable ratio and the run count agree with each other and with a
// simulation of the test they describe.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "stats/distributions.hpp"
#include "stats/power.hpp"

namespace gate::stats {
namespace {

TEST(Power, DetectableAndUnitsToDetectAreInverse) {
  const PowerModel m{0.95, 20, 0.8};
  for (double noise : {0.02, 0.05, 0.15, 0.3})
    for (int n : {3, 5, 10, 30, 100}) {
      const double r = detectable_ratio(noise, n, 0.05, m);
      EXPECT_GT(r, 1.05);
      EXPECT_LT(detectable_ratio(noise, n + 1, 0.05, m), r) << "falls with more units";
      EXPECT_EQ(units_to_detect(noise, r * (1 + 1e-9), 0.05, m), n) << noise << " " << n;
    }
  EXPECT_DOUBLE_EQ(detectable_ratio(0, 10, 0.05, m), 1.05);
  EXPECT_EQ(units_to_detect(0.1, 1.05, 0.05, m), 0);  // at the band: never
  EXPECT_EQ(units_to_detect(2.0, 1.06, 0.05, m, 50), 51);
  EXPECT_EQ(detectable_ratio(0.1, 1, 0.05, m), 0);
}

// Simulated paired t-tests at the units the model asks for catch the slowdown about as often as
// the model says (80%); at half the units, clearly less often.
TEST(Power, MatchesSimulatedPairedTests) {
  const PowerModel m{0.95, 10, 0.8};
  const double noise = 0.08, band = 0.05, ratio = 1.15;
  const int n = units_to_detect(noise, ratio, band, m);
  ASSERT_GT(n, 3);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> d(std::log(ratio), noise);
  auto power = [&](int units) {
    const double crit = student_t_quantile(1 - 0.025 / m.tests, units - 1);
    int hits = 0;
    for (int k = 0; k < 4000; ++k) {
      double sum = 0, sq = 0;
      std::vector<double> x(units);
      for (double& v : x) sum += v = d(rng);
      const double mean = sum / units;
      for (double v : x) sq += (v - mean) * (v - mean);
      const double se = std::sqrt(sq / (units - 1) / units);
      hits += (mean - std::log(1 + band)) / se > crit;
    }
    return hits / 4000.0;
  };
  const double p = power(n);
  std::printf("units %d: simulated power %.3f (model 0.8); at %d units %.3f\n", n, p, n / 2, power(n / 2));
  EXPECT_GT(p, 0.74);
  EXPECT_LT(p, 0.90);
  EXPECT_LT(power(n / 2), 0.6);
}

}  // namespace
}  // namespace gate::stats
