// Tests of stats/aa_noise: the numbers gate calibrate prints, from a synthetic A/A with known
// run-to-run noise.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "synthetic.hpp"
#include "stats/aa_noise.hpp"

namespace gate::stats {
namespace {

using testing::synthetic_aa;
stats::Comparison aa(double run_sigma) { return synthetic_aa(run_sigma, 2000, 31).comparison; }

TEST(Calibration, RowsFollowTheMeasuredNoise) {
  const auto quiet = calibrate(aa(0.02), 10, 30, 0, 0.95);
  const auto noisy = calibrate(aa(0.08), 10, 30, 0, 0.95);
  ASSERT_EQ(quiet.rows.size(), 8u);
  ASSERT_EQ(noisy.rows.size(), 8u);
  EXPECT_EQ(quiet.false_regressions, 0);
  EXPECT_EQ(noisy.false_regressions, 0);
  for (size_t i = 0; i < 8; ++i) {
    const auto& q = quiet.rows[i];
    const auto& n = noisy.rows[i];
    EXPECT_DOUBLE_EQ(q.target, 1.10);  // twice the 5% threshold
    EXPECT_GT(q.caught_at_runs, q.caught_at_max);  // more pairs catch smaller changes
    EXPECT_GT(q.caught_at_max, 1.05);
    EXPECT_LT(q.pairs_for_target, n.pairs_for_target) << q.function;
  }
  // Per pair, the difference of two runs with independent 2% / 8% noise is ~2.8% / ~11.3%, plus
  // the speed factor's own noise (a median of 7 other functions): the median row is close to it.
  auto median_noise = [](const Calibration& c) {
    std::vector<double> v;
    for (const auto& r : c.rows) v.push_back(r.noise);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  EXPECT_NEAR(median_noise(quiet), 0.031, 0.012);
  EXPECT_NEAR(median_noise(noisy), 0.125, 0.045);
  EXPECT_LE(quiet.suggested_runs, quiet.suggested_max_runs);
  EXPECT_LT(quiet.suggested_runs, noisy.suggested_runs);
}

TEST(Calibration, ASlowdownWithinTheThresholdIsNeverSized) {
  const auto cal = calibrate(aa(0.03), 10, 30, 0.04, 0.95);  // 4% < the 5% threshold
  for (const auto& r : cal.rows) EXPECT_EQ(r.pairs_for_target, 0) << r.function;
  EXPECT_EQ(cal.suggested_runs, 0);
  const auto big = calibrate(aa(0.03), 10, 30, 0.5, 0.95);
  EXPECT_GT(big.suggested_runs, 0);
  EXPECT_LT(big.suggested_runs, 10);
}

// Where the noise comes from: with few calls a run and a steady machine, nearly all of it is the
// calls' sampling and longer runs are the advice; with many calls and a machine whose speed moves
// from run to run, little of it is, and more runs are; a quiet workload that catches the target
// within max_runs gets no advice.
// when: "" leaves the calls' moments unknown; "burst" puts every call at 5 ms of a 1 s run (as
// start-up work is), "spread" spreads them evenly over it.
Calibration split(double run_sigma, double calls_per_run, const std::string& when = "") {
  auto a = synthetic_aa(run_sigma, calls_per_run, 41);
  if (!when.empty()) testing::time_calls(a, when);
  return calibrate(a.comparison, 10, 30, 0, 0.95, &a.base, &a.head);
}

TEST(Calibration, SaysWhetherLongerRunsOrMoreRunsWouldHelp) {
  const auto few_calls = split(0.001, 40);
  ASSERT_EQ(few_calls.rows.size(), 8u);
  const auto fns = testing::synthetic_functions(8, 40);
  for (const auto& r : few_calls.rows) {
    const auto f = std::find_if(fns.begin(), fns.end(), [&](const auto& x) { return x.name == r.function; });
    ASSERT_NE(f, fns.end()) << r.function;
    // One run's p50 of n log-normal calls: 1.2533 sigma / sqrt(n) (sigma 0.5, n 40: 9.9%); a pair
    // sqrt(2) times that.
    const double expected = std::sqrt(2.0) * 1.2533 * f->sigma / std::sqrt(40.0);
    EXPECT_NEAR(r.sources.sampling, expected, 0.2 * expected) << r.function;
    EXPECT_NEAR(r.sources.calls_per_run, 40, 3) << r.function;
    EXPECT_GT(r.sampling_share(), 0.5) << r.function << " noise " << r.noise;
    EXPECT_EQ(r.advice, CalibrationRow::Advice::kLongerRuns) << r.function << " noise " << r.noise;
    EXPECT_LT(r.noise_with_calls(4), 0.8 * r.noise) << r.function;
  }
  const auto run_to_run = split(0.15, 4000);
  ASSERT_EQ(run_to_run.rows.size(), 8u);
  for (const auto& r : run_to_run.rows) {
    EXPECT_LT(r.sampling_share(), 0.05) << r.function << " noise " << r.noise << " sampling " << r.sources.sampling;
    EXPECT_EQ(r.advice, CalibrationRow::Advice::kMoreRuns) << r.function << " noise " << r.noise;
    EXPECT_GT(r.noise_with_calls(4), 0.95 * r.noise) << r.function;
  }
  // The same run-to-run noise with the calls' moments known: calls made in a burst meet one state of
  // the machine per run (more runs); calls spread over the run meet many (longer runs help too).
  for (const auto& r : split(0.15, 4000, "burst").rows) {
    EXPECT_TRUE(r.in_a_burst()) << r.function << " at " << r.sources.moment_mean << " +- " << r.sources.moment_sd;
    EXPECT_NEAR(r.sources.moment_mean, 0.005, 0.002) << r.function;
    EXPECT_EQ(r.advice, CalibrationRow::Advice::kMoreRuns) << r.function;
  }
  for (const auto& r : split(0.15, 4000, "spread").rows) {
    EXPECT_TRUE(r.spread_over_the_run()) << r.function;
    EXPECT_NEAR(r.sources.moment_mean, 0.5, 0.01) << r.function;
    EXPECT_NEAR(r.sources.moment_sd, 0.289, 0.01) << r.function;  // uniform over the run: 1 / sqrt(12)
    EXPECT_EQ(r.advice, CalibrationRow::Advice::kLongerOrMoreRuns) << r.function;
  }
  // Mostly sampling: longer runs, whenever the calls are made.
  for (const auto& r : split(0.001, 40, "burst").rows)
    EXPECT_EQ(r.advice, CalibrationRow::Advice::kLongerRuns) << r.function;
  const auto quiet = split(0.005, 4000);
  for (const auto& r : quiet.rows) EXPECT_EQ(r.advice, CalibrationRow::Advice::kNone) << r.function;
  // No gap between the advices: every function short of the target whose split is known gets one,
  // a quarter to a half of its noise from the calls included (when the calls were made unknown).
  int between = 0;
  for (double run_sigma : {0.02, 0.04, 0.08})
    for (double calls : {100.0, 400.0})
      for (const auto& r : split(run_sigma, calls).rows) {
        if (r.pairs_for_target <= 30 || r.sources.sampling <= 0) continue;
        between += r.sampling_share() >= 0.25 && r.sampling_share() < 0.5;
        EXPECT_NE(r.advice, CalibrationRow::Advice::kNone)
            << r.function << " noise " << r.noise << ", share from calls " << r.sampling_share();
      }
  EXPECT_GT(between, 0) << "no case had a quarter to a half of its noise from the calls";
  // Without the runs, the split is unknown and nothing is advised.
  for (const auto& r : calibrate(aa(0.15), 10, 30, 0, 0.95).rows) {
    EXPECT_EQ(r.sources.sampling, 0) << r.function;
    EXPECT_EQ(r.advice, CalibrationRow::Advice::kNone) << r.function;
  }
}

// gate calibrate's pairs: --runs, else at least 10 (or the config's runs); too few is a usage error.
TEST(AaPairs, RunsFlagElseTenOrTheConfigs) {
  EXPECT_EQ(aa_pairs(0, 6), 10);
  EXPECT_EQ(aa_pairs(0, 14), 14);
  EXPECT_EQ(aa_pairs(8, 14), 8) << "--runs wins";
  EXPECT_THROW(aa_pairs(2, 14), Error);
}

}  // namespace
}  // namespace gate::stats
