// explain/: the sentences made from hand-built values, so that each wording is checked apart from
// the statistics that produce the values (tests/stats checks those).
#include "explain/explain.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gate::explain {
namespace {

using stats::Finding;
using stats::QuantileComparison;
using stats::Why;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

QuantileComparison with_why(Why::Kind kind) {
  QuantileComparison q;
  q.name = "p99";
  q.band = {0.10, 0.10};
  q.why.kind = kind;
  return q;
}

TEST(Explain, EveryKindOfMissingDataNamesWhatIsMissingAndWhere) {
  stats::CompareOptions o;
  auto q = with_why(Why::Kind::kTooFewCallsPerRun);
  q.why = {Why::Kind::kTooFewCallsPerRun, "head", "", 1000, 5, 2, 212.4};
  EXPECT_EQ(reason(q, o), "p99 needs >= 1000 calls per run in >= 5 runs, head has 212 per run (median)");
  q.why = {Why::Kind::kNotMeasurable, "base", "no RET instruction"};
  EXPECT_EQ(reason(q, o), "not measurable in base: no RET instruction");
  q.why = {Why::Kind::kTooFewPairs, "", "", 0, 5, 3};
  EXPECT_EQ(reason(q, o), "needs >= 5 pairs of runs, has 3");
  q.why = {Why::Kind::kTooFewPairs, "", "", 100, 5, 3};
  EXPECT_EQ(reason(q, o), "p99 needs >= 5 pairs of runs with >= 100 calls each, has 3");
  q.why = {Why::Kind::kSameConstant};
  EXPECT_EQ(reason(q, o), "the same value in every run of both sides");
}

TEST(Explain, AnUndecidedTestSaysWhatItsIntervalShowsAndWhatWouldDecideIt) {
  stats::CompareOptions o;
  o.first_look = 5;
  o.last_look = 10;
  auto q = with_why(Why::Kind::kAboveButWide);
  q.why.tests = 12;
  q.ratio = 1.12;
  q.ci_low = 1.05;
  q.ci_high = 1.20;
  q.units = 8;
  q.paired = true;
  q.noise = 0.04;
  q.units_to_decide = 14;
  const std::string r = reason(q, o);
  EXPECT_TRUE(has(r, "estimate 1.120 is above +10%, but its interval [1.050, 1.200] after Holm over 12 tests and 6 looks "
                     "reaches below it")) << r;
  EXPECT_TRUE(has(r, "(about 14 pairs of runs at the measured noise, 4.0% per pair)")) << r;
  q.units_to_decide = 1000;  // far beyond 20 x units
  EXPECT_TRUE(has(reason(q, o), "too close to the threshold")) << reason(q, o);
  q.why.kind = Why::Kind::kEquivalenceWide;
  q.why.eq_past_regression = true;
  q.eq_low = 0.98;
  q.eq_high = 1.13;
  q.units_to_decide = 0;
  EXPECT_EQ(reason(q, o), "90% interval [0.980, 1.130] reaches beyond +10% (unchanged needs it inside); more runs "
                          "would narrow it");
}

TEST(Explain, FindingsAreWarningsThatNameTheFunctionAndTheFix) {
  Finding dropped{Finding::Kind::kDroppedCalls, "main.f", "", "head"};
  dropped.count = 50;
  dropped.total = 1000;
  EXPECT_EQ(finding(dropped), "main.f: head dropped 5% of its calls (50): latencies may be biased; fix: raise the "
                              "pairing map size or trace fewer functions");
  EXPECT_EQ(finding({Finding::Kind::kContextDiffers, "", "kernel", "", "6.1", "6.8"}),
            "kernel differs (base: 6.1, head: 6.8): latencies may differ for reasons other than the code");
  EXPECT_EQ(finding({Finding::Kind::kPartial, "", "", "base", "", "", "interrupted"}),
            "base result is partial (interrupted): it should not be a baseline");
}

TEST(Explain, ExplainPutsTheFindingsBeforeTheCallersWarningsAndNamesTheMethod) {
  stats::Comparison c;
  c.tests = 7;
  c.base_runs = c.head_runs = 10;
  c.paired = true;
  c.warnings = {"a caller's note"};
  c.findings.push_back({Finding::Kind::kNoCalls, "", "", "head"});
  c.method_facts.with_benchmarks = true;
  stats::CompareOptions o;
  explain(c, o);
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_EQ(c.warnings[0], "head recorded no calls of any compared function");
  EXPECT_EQ(c.warnings[1], "a caller's note");
  EXPECT_TRUE(has(c.method, "paired runs: Student t over per-pair log ratios (10 runs a side")) << c.method;
  EXPECT_TRUE(has(c.method, "Holm-adjusted over 7 tests (functions and benchmark metrics)")) << c.method;
  EXPECT_TRUE(has(c.method, "; Go benchmark metrics: one value per run and unit")) << c.method;
  EXPECT_EQ(c.method_short, "paired t 95% CI, Holm");
  explain(c, o);  // again, as after a re-decision: the findings are not repeated
  EXPECT_EQ(c.warnings, (std::vector<std::string>{"head recorded no calls of any compared function", "a caller's note"}));
}

}  // namespace
}  // namespace gate::explain
