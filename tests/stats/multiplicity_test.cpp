// Holm and Bonferroni adjusted p-values against a plain Python implementation
// (fixtures/multiplicity.json), and the properties the verdicts rely on.
#include "stats/multiplicity.hpp"

#include <cmath>

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

}  // namespace
}  // namespace gate::stats
