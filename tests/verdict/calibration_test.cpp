// Tests of verdict/calibration: the numbers gate calibrate prints, from a synthetic A/A with known
// run-to-run noise.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "synthetic.hpp"
#include "verdict/calibration.hpp"

namespace gate::verdict {
namespace {

stats::Comparison aa(double run_sigma) {
  const auto fns = testing::synthetic_functions(8);
  testing::SyntheticNoise noise;
  noise.run_sigma = run_sigma;
  const auto meta = testing::synthetic_meta(fns);
  stats::CompareOptions o;
  o.quantiles = {stats::QuantileSpec::parse("p50")};
  o.thresholds.defaults = {0.05, 0.05};
  return stats::compare(testing::synthetic_runs(fns, 12, noise, 31, "base"),
                        testing::synthetic_runs(fns, 12, noise, 32, "head"), meta, meta, o);
}

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

}  // namespace
}  // namespace gate::verdict
