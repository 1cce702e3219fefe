// gate run's table (report::render_run_table) on a synthetic result: pooled quantiles clamped to
// the probe's extremes, calls per run, the entry probe, counters and a not-measurable function,
// and a sampled run's account of its samples.
#include "report/run_table.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace gate::report {
namespace {

FunctionRun calls(const std::string& name, uint64_t ns, uint64_t n) {
  FunctionRun f;
  f.name = name;
  f.calls = n;
  f.sum_ns = ns * n;
  f.min_ns = f.max_ns = ns;
  f.histogram.add(ns, n);
  return f;
}

ResultFile sample() {
  ResultFile r;
  r.functions.push_back({.name = "main.work", .entry_placement = "stack-check-jump", .entry_cost_class = "emulated"});
  r.functions.push_back({.name = "main.tail", .measurable = false, .not_measurable_reason = "no RET instruction"});
  for (int i = 0; i < 2; ++i) {
    RunResult run;
    run.functions.push_back(calls("main.work", 1000, 100));
    r.runs.push_back(run);
  }
  return r;
}

TEST(RunTable, OneLinePerFunction) {
  const std::string t = render_run_table(sample());
  EXPECT_TRUE(std::regex_search(t, std::regex("^function\\s+calls/run\\s+p50\\s+p90\\s+p99\\s+max\\s+entry probe\n")))
      << t;
  EXPECT_TRUE(std::regex_search(t, std::regex("main\\.work\\s+100\\s+1\\.00us\\s+1\\.00us\\s+1\\.00us\\s+1\\.00us\\s+"
                                              "stack-check-jump \\(emulated\\)\n")))
      << "quantiles clamped to the exact 1000 ns the probe saw: " << t;
  EXPECT_NE(t.find("main.tail  not measurable: no RET instruction\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("unmatched"), std::string::npos) << "no counters when all is well: " << t;
}

TEST(RunTable, CountersAndManyUnmatchedReturnsAreShown) {
  ResultFile r = sample();
  r.runs[0].functions[0].unmatched_returns = 50;
  r.runs[1].functions[0].dropped = 1;
  const std::string t = render_run_table(r);
  EXPECT_NE(t.find("[unmatched 50, dropped 1]"), std::string::npos) << t;
  EXPECT_NE(t.find("many returns without an entry"), std::string::npos) << "50 of 200 calls: " << t;
}

// A sampled run: the sampler's account under the table (its CPU time against the workload's own,
// the stacks not walked to their root), and a function that may have lost samples says so.
TEST(RunTable, SampledRunsSayWhatTheSamplerSawAndWhatMayBeLost) {
  ResultFile r = sample();
  for (auto& run : r.runs) {
    run.sample_period_ns = 200'000;  // 5000 Hz
    run.sampler = {5000, 0, 500, 400, 4000};
    run.cpu_s = 1.25;
    run.functions[0].cpu_samples = run.functions[0].self_samples = 100;
    run.functions[0].lost_samples = 7;
  }
  const std::string t = render_run_table(r);
  EXPECT_NE(t.find("sampler: 10000 samples, 2 s of CPU against the workload's own 2.5 s (80%); stacks not walked to "
                   "their root: 1000 (10%), 800 of them with no caller found; 8000 walked past a frame pointer that "
                   "was not their own"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("[cpu/call may lack up to 14 samples: stacks not walked to their root]"), std::string::npos) << t;
  // Not known: the workload's CPU time is left out, not read as 0.
  for (auto& run : r.runs) run.cpu_s = -1;
  const std::string u = render_run_table(r);
  EXPECT_NE(u.find("sampler: 10000 samples, 2 s of CPU; stacks"), std::string::npos) << u;
}

}  // namespace
}  // namespace gate::report
