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
  auto q = with_why(Why::Kind::kTooFewCallsPerRun);
  q.why = {Why::Kind::kTooFewCallsPerRun, "head", "", 1000, 5, 2, 212.4};
  EXPECT_EQ(reason(q), "p99 needs >= 1000 calls per run in >= 5 runs, head has 212 per run (median)");
  q.why = {Why::Kind::kNotMeasurable, "base", "no RET instruction"};
  EXPECT_EQ(reason(q), "not measurable in base: no RET instruction");
  q.why = {Why::Kind::kTooFewPairs, "", "", 0, 5, 3};
  EXPECT_EQ(reason(q), "needs >= 5 pairs of runs, has 3");
  q.why = {Why::Kind::kTooFewPairs, "", "", 100, 5, 3};
  EXPECT_EQ(reason(q), "p99 needs >= 5 pairs of runs with >= 100 calls each, has 3");
  q.why = {Why::Kind::kSameConstant};
  EXPECT_EQ(reason(q), "the same value in every run of both sides");
}

TEST(Explain, AnUndecidedTestSaysWhatItsIntervalShowsAndWhatWouldDecideIt) {
  auto q = with_why(Why::Kind::kAboveButWide);
  q.why.tests = 12;
  q.why.looks = 6;  // looks after 5 to 10
  q.ratio = 1.12;
  q.ci_low = 1.05;
  q.ci_high = 1.20;
  q.units = 8;
  q.paired = true;
  q.noise = 0.04;
  q.units_to_decide = 14;
  const std::string r = reason(q);
  EXPECT_TRUE(has(r, "estimate 1.120 is above +10%, but its interval [1.050, 1.200] after Holm over 12 tests and 6 looks "
                     "reaches below it")) << r;
  EXPECT_TRUE(has(r, "(about 14 pairs of runs at the measured noise, 4.0% per pair)")) << r;
  q.units_to_decide = 1000;  // far beyond 20 x units
  EXPECT_TRUE(has(reason(q), "too close to the threshold")) << reason(q);
  q.why.kind = Why::Kind::kEquivalenceWide;
  q.why.eq_past_regression = true;
  q.eq_low = 0.98;
  q.eq_high = 1.13;
  q.units_to_decide = 0;
  EXPECT_EQ(reason(q), "90% interval [0.980, 1.130] reaches beyond +10% (unchanged needs it inside); more runs "
                          "would narrow it");
}

TEST(Explain, FindingsAreWarningsThatNameTheFunctionAndTheFix) {
  Finding dropped{Finding::Kind::kDroppedCalls, {}, "main.f", "head"};
  dropped.count = 50;
  dropped.total = 1000;
  EXPECT_EQ(finding(dropped), "main.f: head dropped 5% of its calls (50): latencies may be biased; fix: raise the "
                              "pairing map size or trace fewer functions");
  EXPECT_EQ(finding({Finding::Kind::kContextDiffers, Finding::Aspect::kKernel, "", "", "6.1", "6.8"}),
            "kernel differs (base: 6.1, head: 6.8): latencies may differ for reasons other than the code");
  EXPECT_EQ(finding({Finding::Kind::kPartial, {}, "", "base", "", "", "interrupted"}),
            "base result is partial (interrupted): it should not be a baseline");
  EXPECT_EQ(finding({Finding::Kind::kProbeDiffers, Finding::Aspect::kEntryPlacement, "main.f", "", "a", "b"}),
            "main.f: entry probe placement differs (base: a, head: b): the probe's own cost differs, so part of the "
            "change may be the probe's");
  Finding config{Finding::Kind::kConfigChangedSinceBaseline};
  config.detail = "gate.yaml";
  EXPECT_EQ(finding(config), "the config changed since the baseline was recorded (gate.yaml)");
}

TEST(Explain, SpeedNotUsedSaysWhichRunLacksFunctions) {
  EXPECT_EQ(speed_not_used({}), "");
  EXPECT_EQ(speed_not_used({stats::SpeedNotUsed::Kind::kTooFewFunctions, "head", 2, 4, 5}),
            "head run 2 has 4 functions with enough calls (>= 5 needed)");
  EXPECT_EQ(speed_not_used({stats::SpeedNotUsed::Kind::kNoRuns}), "a side has no runs");
}

TEST(Explain, BenchmarkFindingsAndSourceInWords) {
  stats::BenchmarkComparison b;
  b.findings.push_back({stats::BenchmarkFinding::Kind::kUnitOnlyInBase, "BenchmarkX-2", "B/op"});
  b.findings.push_back({stats::BenchmarkFinding::Kind::kUnitOnlyInHead, "BenchmarkX-2", "MB/s"});
  b.findings.push_back({stats::BenchmarkFinding::Kind::kOutputLine, "", "", "out:3: \"BenchmarkY\": no value"});
  EXPECT_EQ(benchmark_warnings(b),
            (std::vector<std::string>{"BenchmarkX-2: B/op is in base but not in head; not compared",
                                      "BenchmarkX-2: MB/s is in head but not in base; not compared",
                                      "out:3: \"BenchmarkY\": no value"}));
  EXPECT_EQ(benchmark_source(b), "");  // no run holds benchmark figures
  b.base_source = {2, 2, 4, 4, false};  // a result written before gate took a unit's fastest execution
  b.head_source = b.base_source;
  EXPECT_EQ(benchmark_source(b),
            "benchmark figures from 4 clean executions (no probe attached); function figures from 4 probed ones");
  b.base_source.fastest = true;
  b.head_source = b.base_source;
  EXPECT_EQ(benchmark_source(b),
            "benchmark figures from 4 clean executions (no probe attached; a unit's time per op is its fastest "
            "execution's); function figures from 4 probed ones");
  b.head_source = {2, 1, 1, 0, true};
  EXPECT_EQ(benchmark_source(b),
            "base: benchmark figures from 4 clean executions (no probe attached; a unit's time per op is its fastest "
            "execution's); function figures from 4 probed ones; "
            "head: benchmark figures from 1 clean execution (no probe attached); no function probed (benchmarks "
            "only); 1 run read from probed executions (an older result)");
  b.head_source = {1, 0, 0, 0};
  EXPECT_EQ(benchmark_source(b.head_source),
            "benchmark figures from probed executions (a result recorded before gate ran benchmarks without probes): "
            "they include the probes' cost");
}

TEST(Explain, ANoisyShardSaysHowNoisyAndWhatItDid) {
  EXPECT_EQ(noisy_shard(2, "ci-7", 3.04, -1), "shard 2 (ci-7) was 3.0x as noisy as the median shard: its pairs widen every interval");
  EXPECT_EQ(noisy_shard(1, "ci-3", 2.5, 0.125),
            "shard 1 (ci-3) was 2.5x as noisy as the median shard: its pairs weigh 0.12 of the estimates");
}

TEST(Explain, WarningsListTheFindingsTheBenchmarksTheCallersNotesThenAConfigChange) {
  stats::Comparison c;
  c.tests = 7;
  c.base_runs = c.head_runs = 10;
  c.paired = true;
  Finding config{Finding::Kind::kConfigChangedSinceBaseline};
  config.detail = "gate.yaml";
  c.findings.push_back(config);
  c.findings.push_back({Finding::Kind::kNoCalls, {}, "", "head"});
  c.benchmarks.only_in_head = {"BenchmarkNew-2"};
  c.benchmarks.without_results = "base";
  c.method_facts.with_benchmarks = true;
  EXPECT_EQ(warnings(c, {"a caller's note"}), (std::vector<std::string>{
                             "head recorded no calls of any compared function",
                             "benchmark BenchmarkNew-2 ran in head but not in base: not compared (new, or renamed?)",
                             "base holds no benchmark results: benchmarks are not compared (was it recorded without "
                             "benchmarks: go?)",
                             "a caller's note",
                             "the config changed since the baseline was recorded (gate.yaml)",
                         }));
  const std::string m = method(c);
  EXPECT_TRUE(has(m, "paired runs: Student t over per-pair log ratios (10 runs a side")) << m;
  EXPECT_TRUE(has(m, "Holm-adjusted over 7 tests (functions and benchmark metrics)")) << m;
  EXPECT_TRUE(has(m, "; Go benchmark metrics: one value per run and unit")) << m;
  EXPECT_EQ(method_short(c), "paired t 95% CI, Holm");
  c.speed_normalized = false;
  c.method_facts.speed_not_used = {stats::SpeedNotUsed::Kind::kNoRuns};
  EXPECT_TRUE(has(method(c), "no speed normalization (a side has no runs), ")) << method(c);
}

TEST(Explain, NoteSaysTheModeWindowAndTheLayouts) {
  QuantileComparison q;
  q.name = "p50";
  EXPECT_EQ(note(q), "");
  q.layouts = {3, 0.25, 1.2};
  EXPECT_EQ(note(q), "interval 20% wider for the variance between the 3 code layouts its units ran (25% of its "
                     "per-unit variance)");
}

}  // namespace
}  // namespace gate::explain
