// Tests of stats/power: the detectable ratio and the run count agree with each other and with a
// simulation of the test they describe.
#include <cmath>
#include <functional>
#include <random>
#include <vector>

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

// The sampling part of a run's p50: from one run's histogram, the predicted log-sd matches the
// textbook value for a log-normal (1.2533 sigma / sqrt(n)) and, what matters, the spread of p50
// over many simulated runs of the same calls -- also for a two-mode mix, where p50 sits in a gap.
double log_p50_sd_over_runs(const std::function<double(std::mt19937_64&)>& draw, int calls, double* predicted) {
  std::mt19937_64 rng(7);
  std::vector<double> logs;
  double pred = 0;
  const int runs = 400;
  for (int r = 0; r < runs; ++r) {
    LatencyHistogram h;
    for (int c = 0; c < calls; ++c) h.add(static_cast<uint64_t>(draw(rng)));
    logs.push_back(std::log(h.quantile(0.5)));
    pred += quantile_sampling_sd(h, 0.5) / runs;
  }
  double mean = 0, var = 0;
  for (double v : logs) mean += v / runs;
  for (double v : logs) var += (v - mean) * (v - mean) / (runs - 1);
  *predicted = pred;
  return std::sqrt(var);
}

TEST(Power, QuantileSamplingSdMatchesTheSpreadOfRunsP50) {
  for (int calls : {100, 1000}) {
    std::lognormal_distribution<double> ln(std::log(50'000.0), 0.5);
    double pred = 0;
    const double seen = log_p50_sd_over_runs([&](std::mt19937_64& g) { return ln(g); }, calls, &pred);
    EXPECT_NEAR(pred, 1.2533 * 0.5 / std::sqrt(calls), 0.15 * 1.2533 * 0.5 / std::sqrt(calls)) << calls;
    EXPECT_NEAR(pred, seen, 0.2 * seen) << calls << " calls: predicted " << pred << ", seen " << seen;
  }
  // Two modes 1.8x apart, 55% fast: p50 sits at the fast mode's upper edge and jumps with the mix.
  std::lognormal_distribution<double> fast(std::log(800'000.0), 0.05), slow(std::log(1'450'000.0), 0.05);
  std::bernoulli_distribution is_fast(0.55);
  double pred = 0;
  const double seen = log_p50_sd_over_runs(
      [&](std::mt19937_64& g) { return is_fast(g) ? fast(g) : slow(g); }, 300, &pred);
  EXPECT_NEAR(pred, seen, 0.35 * seen) << "predicted " << pred << ", seen " << seen;
  EXPECT_GT(seen, 0.03);  // the mix's p50 is far noisier than either mode's 5% spread / sqrt(300)

  LatencyHistogram empty;
  EXPECT_EQ(quantile_sampling_sd(empty, 0.5), 0);
  LatencyHistogram one;
  one.add(1000, 50);
  EXPECT_NEAR(quantile_sampling_sd(one, 0.5), 0, 0.02);  // all calls in one bucket
  EXPECT_EQ(quantile_sampling_sd(one, 1.5), 0);
}

}  // namespace
}  // namespace gate::stats
