// Normal, Student t, incomplete beta and the approximate Beta quantile against scipy
// (fixtures/distributions.json).
#include "stats/distributions.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace gate::stats {
namespace {

// Relative tolerance with an absolute floor for values that underflow towards 0.
void expect_close(double actual, double expected, double rel, double abs_floor, const std::string& what) {
  EXPECT_LE(std::abs(actual - expected), rel * std::abs(expected) + abs_floor)
      << what << ": got " << actual << ", scipy " << expected;
}

TEST(Distributions, NormalCdfAndUpperTailMatchScipy) {
  for (const auto& c : testing::fixture("distributions.json", "normal_cdf")) {
    const double z = c["z"];
    expect_close(normal_cdf(z), c["cdf"], 1e-12, 1e-300, "cdf(" + std::to_string(z) + ")");
    expect_close(normal_upper_tail(z), c["upper"], 1e-12, 1e-300, "upper(" + std::to_string(z) + ")");
  }
}

TEST(Distributions, NormalQuantileMatchesScipy) {
  for (const auto& c : testing::fixture("distributions.json", "normal_quantile")) {
    const double p = c["p"];
    expect_close(normal_quantile(p), c["z"], 1e-12, 1e-13, "quantile(" + std::to_string(p) + ")");
  }
  EXPECT_TRUE(std::isinf(normal_quantile(0)) && normal_quantile(0) < 0);
  EXPECT_TRUE(std::isinf(normal_quantile(1)) && normal_quantile(1) > 0);
  EXPECT_TRUE(std::isnan(normal_quantile(1.5)));
}

TEST(Distributions, IncompleteBetaMatchesScipy) {
  for (const auto& c : testing::fixture("distributions.json", "incomplete_beta")) {
    const double x = c["x"], a = c["a"], b = c["b"];
    expect_close(incomplete_beta(x, a, b), c["value"], 1e-10, 1e-13,
                 "I(" + std::to_string(x) + "; " + std::to_string(a) + ", " + std::to_string(b) + ")");
  }
}

TEST(Distributions, StudentTMatchesScipy) {
  for (const auto& c : testing::fixture("distributions.json", "student_t")) {
    const double t = c["t"], nu = c["nu"];
    const std::string what = "t=" + std::to_string(t) + " nu=" + std::to_string(nu);
    expect_close(student_t_cdf(t, nu), c["cdf"], 1e-9, 1e-300, "cdf " + what);
    expect_close(student_t_upper_tail(t, nu), c["upper"], 1e-9, 1e-300, "upper " + what);
  }
}

TEST(Distributions, StudentTQuantileMatchesScipy) {
  for (const auto& c : testing::fixture("distributions.json", "student_t_quantile")) {
    const double p = c["p"], nu = c["nu"];
    const double t = student_t_quantile(p, nu);
    const std::string what = "quantile p=" + std::to_string(p) + " nu=" + std::to_string(nu);
    // scipy's t.ppf is itself good to ~1e-9 (its cdf at its ppf is off by that much), so compare
    // to it at 1e-8 and check the round trip through the cdf tighter (1e-10: with 1e6 df the
    // continued fraction runs thousands of steps near the distribution's centre).
    expect_close(t, c["t"], 1e-8, 1e-12, what);
    expect_close(student_t_cdf(t, nu), p, 1e-10, 1e-300, what + " (round trip)");
  }
}

// The approximation only has to be good where the bootstrap uses it: both parameters >= 5
// (gate asks for >= 10 calls beyond a quantile). There it must be within 1% of the sd.
TEST(Distributions, BetaQuantileApproximationWithinOnePercentOfSd) {
  for (const auto& c : testing::fixture("distributions.json", "beta_quantile")) {
    const double p = c["p"], a = c["a"], b = c["b"], sd = c["sd"];
    if (std::min(a, b) < 5) continue;
    const double x = beta_quantile_approx(p, a, b);
    EXPECT_LE(std::abs(x - c["x"].get<double>()), 0.01 * sd)
        << "Beta(" << a << ", " << b << ") at " << p << ": got " << x << ", scipy " << c["x"];
    EXPECT_NEAR(beta_quantile_approx(BetaLevel::at(p), a, b), x, 1e-15);
  }
}

}  // namespace
}  // namespace gate::stats
