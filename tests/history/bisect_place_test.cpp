// gate bisect's placement of a step that no verdict decided (gate/bisect, pure): BAD's regression
// read from gate ab's JSON entry of the function, and a step's side of the point midway to it.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "bisect/bisect.hpp"

namespace gate::bisect {
namespace {

nlohmann::json test_entry(const std::string& name, const std::string& verdict, double ratio, double lo, double hi) {
  return {{"name", name}, {"verdict", verdict}, {"ratio", ratio}, {"ci_unadjusted_low", lo}, {"ci_unadjusted_high", hi}};
}

nlohmann::json function(const std::string& verdict, std::vector<nlohmann::json> tests) {
  return {{"name", "example.com/shop/pricing.Apply"}, {"verdict", verdict}, {"quantiles", tests}};
}

TEST(BisectPlace, TheReferenceIsTheTestThatFlaggedTheRegression) {
  const auto r = reference_of(function("regression", {test_entry("p50", "inconclusive", 1.02, 0.99, 1.05),
                                                      test_entry("cpu/call", "regression", 1.5, 1.3, 1.7)}));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->test, "cpu/call");
  EXPECT_DOUBLE_EQ(r->ratio, 1.5);
  EXPECT_NEAR(r->midway(), std::sqrt(1.5), 1e-12);
}

TEST(BisectPlace, NoReferenceWithoutARegressionOfTheFunction) {
  // A suspect or inconclusive BAD gives nothing to place a step against (bisect stops, exit 3).
  EXPECT_FALSE(reference_of(function("suspect", {test_entry("cpu/call", "suspect", 1.5, 0.9, 2.5)})).has_value());
  EXPECT_FALSE(reference_of(function("inconclusive", {test_entry("p50", "inconclusive", 1.1, 0.9, 1.3)})).has_value());
  EXPECT_FALSE(reference_of(nlohmann::json()).has_value());
}

TEST(BisectPlace, AStepIsPlacedBySideOfTheMidwayPoint) {
  const Reference ref{"cpu/call", 1.5};  // midway 1.2247
  // The pre-merge A/A's figures (tests/bench/results/pre_merge-both-instruments.txt): inconclusive,
  // [0.73, 1.14] uncorrected: below midway, so good.
  EXPECT_EQ(place(ref, function("inconclusive", {test_entry("cpu/call", "inconclusive", 0.91, 0.73, 1.14)})),
            Side::kGood);
  EXPECT_EQ(place(ref, function("suspect", {test_entry("cpu/call", "suspect", 1.48, 1.26, 1.74)})), Side::kBad);
  EXPECT_EQ(place(ref, function("inconclusive", {test_entry("cpu/call", "inconclusive", 1.2, 0.95, 1.5)})),
            Side::kAcross);
}

TEST(BisectPlace, OnlyTheReferencesOwnTestPlacesAStep) {
  const Reference ref{"cpu/call", 2.0};
  // A narrow p50 below midway does not place it: the p50 is not the test that saw BAD's change.
  EXPECT_EQ(place(ref, function("inconclusive", {test_entry("p50", "inconclusive", 1.0, 0.98, 1.02)})),
            Side::kAcross);
  nlohmann::json no_interval = function("inconclusive", {{{"name", "cpu/call"}, {"ratio", 1.0}}});
  EXPECT_EQ(place(ref, no_interval), Side::kAcross);
}

}  // namespace
}  // namespace gate::bisect
