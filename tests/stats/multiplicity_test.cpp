// Holm and Bonferroni adjusted p-values against a plain Python implementation
// (fixtures/multiplicity.json), and the properties the verdicts rely on.
#include "stats/multiplicity.hpp"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace gate::stats {
namespace {

TEST(Multiplicity, HolmAndBonferroniMatchReference) {
  for (const auto& c : testing::fixture("multiplicity.json", "cases")) {
    const auto p = c["p"].get<std::vector<double>>();
    const auto holm = adjust_p_values(p, Multiplicity::kHolm);
    const auto bonf = adjust_p_values(p, Multiplicity::kBonferroni);
    ASSERT_EQ(holm.size(), p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      EXPECT_NEAR(holm[i], c["holm"][i].get<double>(), 1e-12) << "test " << i << " of " << p.size();
      EXPECT_NEAR(bonf[i], c["bonferroni"][i].get<double>(), 1e-12) << "test " << i << " of " << p.size();
    }
  }
}

TEST(Multiplicity, HolmNeverBelowRawNeverAboveBonferroni) {
  for (const auto& c : testing::fixture("multiplicity.json", "cases")) {
    const auto p = c["p"].get<std::vector<double>>();
    const auto holm = adjust_p_values(p, Multiplicity::kHolm);
    const auto bonf = adjust_p_values(p, Multiplicity::kBonferroni);
    for (size_t i = 0; i < p.size(); ++i) {
      EXPECT_GE(holm[i], p[i]);
      EXPECT_LE(holm[i], bonf[i]);
    }
  }
}

TEST(Multiplicity, NanIsLeftOutOfTheFamily) {
  const double nan = std::nan("");
  const auto adj = adjust_p_values({0.01, nan, 0.02}, Multiplicity::kHolm);
  EXPECT_TRUE(std::isnan(adj[1]));
  EXPECT_NEAR(adj[0], 0.02, 1e-15);  // m = 2, not 3
  EXPECT_NEAR(adj[2], 0.02, 1e-15);
  const auto none = adjust_p_values({0.01, nan}, Multiplicity::kNone);
  EXPECT_NEAR(none[0], 0.01, 1e-15);
  EXPECT_TRUE(adjust_p_values({}, Multiplicity::kHolm).empty());
}

// Benjamini-Hochberg, worked by hand: sorted 0.005 0.01 0.03 0.04 -> x4/1 x4/2 x4/3 x4/4, then the
// running minimum from the largest.
TEST(Multiplicity, BenjaminiHochbergStepsUp) {
  const auto adj = adjust_p_values({0.01, 0.04, 0.03, 0.005}, Multiplicity::kBenjaminiHochberg);
  const std::vector<double> want = {0.02, 0.04, 0.04, 0.02};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(adj[i], want[i], 1e-15) << i;
}

// Weighted Holm, worked by hand: primaries share 0.8 (0.4 each), the tails 0.2 (0.1 each); order by
// p / w (0.025, 0.03, 0.05, 5), each times the weight still in play (1, 0.6, 0.5, 0.1), made monotone.
TEST(Multiplicity, PrimaryFirstIsHolmWeightedByShare) {
  const std::vector<double> p = {0.01, 0.02, 0.003, 0.5};
  const std::vector<bool> primary = {true, true, false, false};
  const auto adj = adjust_p_values(p, Multiplicity::kHolmPrimaryFirst, primary);
  const std::vector<double> want = {0.025, 0.025, 0.025, 0.5};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(adj[i], want[i], 1e-12) << i;
  // With one kind of test only, the weights are equal: plain Holm.
  const auto all = adjust_p_values(p, Multiplicity::kHolmPrimaryFirst, {true, true, true, true});
  const auto holm = adjust_p_values(p, Multiplicity::kHolm);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(all[i], holm[i], 1e-12) << i;
}

// The level an interval is shown at agrees with every rejection: rejected tests' p at or below it,
// every other test's above it, for every correction, on random families with some real effects.
TEST(Multiplicity, RejectionLevelsAgreeWithTheRejections) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  const double alpha = 0.025;
  int rejections = 0;
  for (auto m : {Multiplicity::kHolm, Multiplicity::kBonferroni, Multiplicity::kNone,
                 Multiplicity::kHolmPrimaryFirst, Multiplicity::kBenjaminiHochberg}) {
    for (int trial = 0; trial < 500; ++trial) {
      const int n = 1 + trial % 40;
      std::vector<double> p;
      std::vector<bool> primary;
      for (int i = 0; i < n; ++i) {
        const bool effect = u(rng) < 0.2;
        p.push_back(effect ? std::pow(u(rng), 8) * 1e-2 : u(rng));
        primary.push_back(i % 2 == 0);
      }
      const auto adj = adjust_p_values(p, m, primary);
      const auto level = rejection_levels(p, adj, m, alpha, primary);
      for (int i = 0; i < n; ++i) {
        if (adj[i] < alpha) {
          ++rejections;
          EXPECT_LE(p[i], level[i] * (1 + 1e-12)) << to_string(m) << " trial " << trial << " test " << i;
        } else {
          EXPECT_GT(p[i], level[i] * (1 - 1e-12)) << to_string(m) << " trial " << trial << " test " << i;
        }
      }
    }
  }
  EXPECT_GT(rejections, 1000);
}

TEST(Multiplicity, ConfigWordsParse) {
  Multiplicity m;
  EXPECT_TRUE(parse_multiplicity("p50-first", &m));
  EXPECT_EQ(m, Multiplicity::kHolmPrimaryFirst);
  EXPECT_TRUE(parse_multiplicity("fdr", &m));
  EXPECT_EQ(m, Multiplicity::kBenjaminiHochberg);
  EXPECT_FALSE(parse_multiplicity("Holm", &m));
}

}  // namespace
}  // namespace gate::stats
