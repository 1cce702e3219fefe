// Merging a unit's executions into one run, and the run's executions and layout in the result JSON.
#include "results/unit_merge.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

FunctionRun function(const char* name, std::initializer_list<uint64_t> calls_ns) {
  FunctionRun f;
  f.name = FunctionName(name);
  for (uint64_t ns : calls_ns) {
    f.histogram.add(ns);
    f.min_ns = f.calls ? std::min(f.min_ns, ns) : ns;
    f.max_ns = std::max(f.max_ns, ns);
    ++f.calls;
    f.sum_ns += ns;
  }
  return f;
}

RunResult execution(double seconds, std::vector<FunctionRun> fs, int exit_code = 0) {
  RunResult r;
  r.index = 7;
  r.variant = "base";
  r.duration_s = seconds;
  r.exit_code = exit_code;
  r.functions = std::move(fs);
  return r;
}

TEST(MergeExecutions, SumsCallsTimesAndDurationsAndMergesHistograms) {
  const RunResult one = execution(0.3, {function("a", {100, 200, 300}), function("b", {5000})});
  const RunResult two = execution(0.4, {function("a", {50, 400})}, 2);
  RunResult three = execution(0.2, {function("b", {7000}), function("c", {1})});
  three.lost_call_edges = 3;
  const RunResult u = merge_executions({one, two, three});
  EXPECT_EQ(u.executions, 3);
  EXPECT_DOUBLE_EQ(u.duration_s, 0.9);
  EXPECT_EQ(u.index, 7);
  EXPECT_EQ(u.variant, "base");
  EXPECT_EQ(u.exit_code, 2) << "the first non-zero exit";
  EXPECT_EQ(u.lost_call_edges, 3u);
  ASSERT_EQ(u.functions.size(), 3u);
  const FunctionRun* a = u.find("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->calls, 5u);
  EXPECT_EQ(a->sum_ns, 1050u);
  EXPECT_EQ(a->min_ns, 50u);
  EXPECT_EQ(a->max_ns, 400u);
  EXPECT_EQ(a->histogram.count(), 5u);
  LatencyHistogram expect;
  for (uint64_t ns : {100, 200, 300, 50, 400}) expect.add(ns);
  EXPECT_EQ(a->histogram, expect) << "the unit's histogram is the executions' merged";
  EXPECT_EQ(u.find("b")->calls, 2u);
  EXPECT_EQ(u.find("b")->min_ns, 5000u);
  EXPECT_EQ(u.find("c")->calls, 1u) << "a function only a later execution called is kept";
}

// The sampler's counts and a function's lost samples add up over a unit's executions, as its
// samples do.
TEST(MergeExecutions, SamplerCountsAndLostSamplesAddUp) {
  RunResult one = execution(0.3, {function("a", {100})});
  RunResult two = execution(0.4, {function("a", {200})});
  one.sampler = {100, 1, 10, 4, 50};
  two.sampler = {200, 0, 5, 1, 70};
  one.functions[0].lost_samples = 3;
  two.functions[0].lost_samples = 2;
  const RunResult u = merge_executions({one, two});
  EXPECT_EQ(u.sampler.samples, 300u);
  EXPECT_EQ(u.sampler.no_stack, 1u);
  EXPECT_EQ(u.sampler.not_to_root, 15u);
  EXPECT_EQ(u.sampler.no_caller, 5u);
  EXPECT_EQ(u.sampler.fp_differed, 120u);
  EXPECT_EQ(u.find("a")->lost_samples, 5u);
}

// One line per benchmark: a time per op is the fastest execution's (interference only adds time),
// a higher-is-better metric the best, the other metrics the iteration-weighted mean.
TEST(MergeExecutions, EachBenchmarkStaysOneLineTimesFastestOthersMean) {
  RunResult a = execution(0.5, {}), b = execution(0.5, {});
  a.benchmarks = {{"BenchmarkCheckout-2", "shop", 100, {{"ns/op", 1000}, {"B/op", 64}, {"MB/s", 90}}},
                  {"BenchmarkGet-2", "shop", 1000, {{"ns/op", 10}, {"cpu-ns/op", 9}, {"hits/op", 4}}}};
  b.benchmarks = {{"BenchmarkCheckout-2", "shop", 300, {{"ns/op", 2000}, {"B/op", 32}, {"MB/s", 45}}},
                  {"BenchmarkGet-2", "shop", 1000, {{"ns/op", 30}, {"cpu-ns/op", 12}, {"hits/op", 8}}}};
  a.benchmark_higher_better = b.benchmark_higher_better = {"MB/s"};
  const RunResult u = merge_executions({a, b});
  ASSERT_EQ(u.benchmarks.size(), 2u);  // not one line per execution
  EXPECT_EQ(u.benchmarks[0].name, "BenchmarkCheckout-2");
  EXPECT_EQ(u.benchmarks[0].iterations, 400u);
  EXPECT_DOUBLE_EQ(u.benchmarks[0].metrics[0].second, 1000) << "ns/op: the fastest execution";
  EXPECT_DOUBLE_EQ(u.benchmarks[0].metrics[1].second, (64.0 * 100 + 32.0 * 300) / 400) << "B/op: weighted mean";
  EXPECT_DOUBLE_EQ(u.benchmarks[0].metrics[2].second, 90) << "MB/s: the best";
  EXPECT_EQ(u.benchmarks[1].iterations, 1000u);  // the same b.N in every execution: b.N
  EXPECT_DOUBLE_EQ(u.benchmarks[1].metrics[0].second, 10);
  EXPECT_DOUBLE_EQ(u.benchmarks[1].metrics[1].second, 9) << "cpu-ns/op is a time per op too";
  EXPECT_DOUBLE_EQ(u.benchmarks[1].metrics[2].second, 6) << "a custom count: the mean";
  // Three executions of the same b.N weigh a third each in a mean.
  RunResult c = execution(0.5, {});
  c.benchmarks = {{"BenchmarkGet-2", "shop", 1000, {{"ns/op", 50}, {"cpu-ns/op", 7}, {"hits/op", 12}}}};
  a.benchmarks = {a.benchmarks[1]};
  b.benchmarks = {b.benchmarks[1]};
  const RunResult three = merge_executions({a, b, c});
  ASSERT_EQ(three.benchmarks.size(), 1u);
  EXPECT_DOUBLE_EQ(three.benchmarks[0].metrics[0].second, 10);
  EXPECT_DOUBLE_EQ(three.benchmarks[0].metrics[1].second, 7);
  EXPECT_DOUBLE_EQ(three.benchmarks[0].metrics[2].second, 8);  // (4 + 8 + 12) / 3
}

// Beside the fold, each execution's own value of a time per op or a throughput (what the modes
// across executions are found from: stats/benchmark_modes.hpp), in the order they ran; a mean-folded
// metric keeps none, and a run of one execution keeps none (its value is the metric's). They go
// through the result JSON and back.
TEST(MergeExecutions, KeepsEachExecutionsTimeAndThroughputBesideTheFold) {
  RunResult a = execution(0.5, {}), b = execution(0.5, {}), c = execution(0.5, {});
  a.benchmarks = {{"BenchmarkSum-2", "xx", 100, {{"ns/op", 1000}, {"B/op", 64}, {"MB/s", 600}}}};
  b.benchmarks = {{"BenchmarkSum-2", "xx", 100, {{"ns/op", 1800}, {"B/op", 64}, {"MB/s", 330}}}};
  c.benchmarks = {{"BenchmarkSum-2", "xx", 100, {{"ns/op", 1100}, {"B/op", 64}, {"MB/s", 545}}}};
  a.benchmark_higher_better = b.benchmark_higher_better = c.benchmark_higher_better = {"MB/s"};
  const RunResult u = merge_executions({a, b, c});
  ASSERT_EQ(u.benchmarks.size(), 1u);
  const BenchmarkRun& m = u.benchmarks[0];
  EXPECT_DOUBLE_EQ(m.metrics[0].second, 1000) << "the fold is unchanged: the fastest";
  ASSERT_NE(m.executions_of("ns/op"), nullptr);
  EXPECT_EQ(*m.executions_of("ns/op"), (std::vector<double>{1000, 1800, 1100}));
  ASSERT_NE(m.executions_of("MB/s"), nullptr);
  EXPECT_EQ(*m.executions_of("MB/s"), (std::vector<double>{600, 330, 545}));
  EXPECT_EQ(m.executions_of("B/op"), nullptr) << "a mean needs no executions beside it";
  EXPECT_TRUE(merge_executions({a}).benchmarks[0].executions.empty()) << "one execution: its value is the metric's";
  // Runs merged again keep every execution, not their folds.
  const RunResult again = merge_executions({u, merge_executions({a, b})});
  EXPECT_EQ(again.benchmarks[0].executions_of("ns/op")->size(), 5u);

  ResultFile r;
  RunResult run = u;
  run.index = 1;
  r.runs.push_back(run);
  const ResultFile back = result_from_json_text(result_to_json_text(r), "test");
  ASSERT_EQ(back.runs.size(), 1u);
  ASSERT_EQ(back.runs[0].benchmarks.size(), 1u);
  EXPECT_EQ(back.runs[0].benchmarks[0].executions, m.executions);
}

TEST(MergeExecutions, OneExecutionIsItself) {
  const RunResult one = execution(0.3, {function("a", {100, 200})});
  const RunResult u = merge_executions({one});
  EXPECT_EQ(u.executions, 1);
  EXPECT_EQ(u.functions.size(), 1u);
  EXPECT_EQ(u.find("a")->histogram, one.find("a")->histogram);
  EXPECT_EQ(merge_executions({}).functions.size(), 0u);
}

TEST(MergeExecutions, ExecutionsAndLayoutRoundTripThroughJson) {
  ResultFile r;
  r.functions.push_back(FunctionInfo{0, "a"});
  RunResult u = merge_executions({execution(0.3, {function("a", {100})}), execution(0.3, {function("a", {120})})});
  u.index = 1;
  u.layout = 2;
  r.runs.push_back(u);
  RunResult plain = execution(0.3, {function("a", {100})});
  plain.index = 2;
  r.runs.push_back(plain);
  const std::string text = result_to_json_text(r);
  EXPECT_NE(text.find("\"executions\""), std::string::npos);
  const ResultFile back = result_from_json_text(text, "test");
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[0].executions, 2);
  EXPECT_EQ(back.runs[0].layout, 2);
  EXPECT_EQ(back.runs[1].executions, 1) << "absent: one execution";
  EXPECT_EQ(back.runs[1].layout, -1) << "absent: no layout";
}

}  // namespace
}  // namespace gate
