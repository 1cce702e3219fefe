// The runner's hook: a run's stdout file into RunResult::benchmarks, warnings logged and kept,
// and a run that printed no result is an error (exit 3) naming the workload.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "explain/explain.hpp"
#include "results/result.hpp"
#include "runner/benchmark_results.hpp"

namespace gate::runner {
namespace {

// Which executions the runs' benchmark figures came from, in the reports' words.
std::string source_of(const std::vector<RunResult>& runs) { return explain::benchmark_source(stats::benchmark_source(runs)); }

namespace fs = std::filesystem;

struct StdoutFile {
  std::string path = (fs::temp_directory_path() / ("gate-readbench-" + std::to_string(getpid()))).string();
  explicit StdoutFile(const std::string& text) { std::ofstream(path) << text; }
  ~StdoutFile() { fs::remove(path); }
};

Config go_config() {
  Config c;
  c.workload = "bin/x.test -test.bench .";
  c.benchmarks = "go";
  return c;
}

TEST(ReadBenchmarks, FillsTheRunAndLogsMalformedLines) {
  StdoutFile out("pkg: example.com/x\nBenchmarkA-2  10  5 ns/op  3 MB/s\nBenchmarkB-2  oops\nPASS\n");
  RunResult r;
  std::vector<std::string> log;
  read_benchmarks(go_config(), out.path, "run 2 (head)", r, [&](const std::string& l) { log.push_back(l); });
  ASSERT_EQ(r.benchmarks.size(), 1u);
  EXPECT_EQ(r.benchmarks[0].pkg, "example.com/x");
  EXPECT_EQ(r.benchmark_config.at("pkg"), "example.com/x");
  EXPECT_EQ(r.benchmark_higher_better, std::vector<std::string>{"MB/s"});
  ASSERT_EQ(r.benchmark_warnings.size(), 1u);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].rfind("warning: run 2 (head) stdout:3: \"BenchmarkB-2  oops\"", 0), 0u) << log[0];
}

TEST(ReadBenchmarks, NoResultIsAnErrorNamingTheWorkload) {
  StdoutFile out("PASS\nok  \texample.com/x\t0.01s\n");
  RunResult r;
  try {
    read_benchmarks(go_config(), out.path, "run 1", r, nullptr);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kMeasure);
    EXPECT_NE(std::string(e.what()).find("workload 'bin/x.test -test.bench .' (run 1)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("-test.bench"), std::string::npos) << e.what();
  }
}

// benchmark_cpu: the execution's CPU time over the one benchmark's b.N, as cpu-ns/op.
TEST(ReadBenchmarks, BenchmarkCpuAddsTheExecutionsCpuPerOp) {
  StdoutFile out("BenchmarkA-2  1000  1800 ns/op\nPASS\n");
  Config c = go_config();
  c.benchmark_cpu = true;
  RunResult r;
  read_benchmarks(c, out.path, "run 1", r, nullptr, 0.002);
  ASSERT_EQ(r.benchmarks.size(), 1u);
  ASSERT_EQ(r.benchmarks[0].metrics.size(), 2u);
  EXPECT_EQ(r.benchmarks[0].metrics[1].first, kCpuNsPerOp);
  EXPECT_DOUBLE_EQ(r.benchmarks[0].metrics[1].second, 2000.0);  // 2 ms over 1000 ops
  RunResult unknown;
  read_benchmarks(c, out.path, "run 1", unknown, nullptr, -1);
  EXPECT_EQ(unknown.benchmarks[0].metrics.size(), 1u) << "no CPU time known (a service): no cpu-ns/op";
  RunResult off;
  read_benchmarks(go_config(), out.path, "run 1", off, nullptr, 0.002);
  EXPECT_EQ(off.benchmarks[0].metrics.size(), 1u) << "only with benchmark_cpu: true";
}

TEST(ReadBenchmarks, BenchmarkCpuRefusesSeveralBenchmarksAnExecution) {
  StdoutFile out("BenchmarkA-2  1000  1800 ns/op\nBenchmarkB-2  10  5 ns/op\n");
  Config c = go_config();
  c.benchmark_cpu = true;
  RunResult r;
  try {
    read_benchmarks(c, out.path, "run 1", r, nullptr, 0.002);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("printed 2 benchmark results"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("matches one benchmark"), std::string::npos) << e.what();
  }
}

TEST(ReadBenchmarks, NothingWithoutTheConfigKey) {
  StdoutFile out("BenchmarkA-2  10  5 ns/op\n");
  Config c = go_config();
  c.benchmarks = "none";
  RunResult r;
  read_benchmarks(c, out.path, "run 1", r, nullptr);
  EXPECT_TRUE(r.benchmarks.empty());
}

// A unit's function figures from its probed executions, its benchmark figures from its clean ones.
TEST(CleanBenchmarks, TheUnitKeepsTheCleanExecutionsFigures) {
  RunResult unit;
  unit.executions = 3;
  unit.duration_s = 9;
  unit.functions.push_back(FunctionRun{});
  unit.benchmarks.push_back(BenchmarkRun{"BenchmarkA-2", "x", 10, {{"ns/op", 900}}});  // probed: never kept
  RunResult clean;
  clean.executions = 3;
  clean.duration_s = 3;
  clean.benchmarks.push_back(BenchmarkRun{"BenchmarkA-2", "x", 10, {{"ns/op", 100}}});
  clean.benchmark_config["pkg"] = "x";
  take_clean_benchmarks(unit, clean);
  ASSERT_EQ(unit.benchmarks.size(), 1u);
  EXPECT_EQ(unit.benchmarks[0].metrics[0].second, 100);
  EXPECT_EQ(unit.benchmark_config.at("pkg"), "x");
  EXPECT_EQ(unit.functions.size(), 1u);
  EXPECT_EQ(unit.clean_executions, 3);
  EXPECT_EQ(unit.probed_executions, 3);
  EXPECT_EQ(unit.clean_duration_s, 3);
  EXPECT_EQ(unit.duration_s, 9);

  RunResult only;
  only.executions = 2;
  only.duration_s = 4;
  mark_all_clean(only);
  EXPECT_EQ(only.clean_executions, 2);
  EXPECT_EQ(only.probed_executions, 0);
  EXPECT_EQ(only.clean_duration_s, 4);
}

// The run JSON keeps where the figures came from, and the reports' line says it.
TEST(CleanBenchmarks, RecordedInTheRunJsonAndNamedInOneLine) {
  ResultFile f;
  for (int k = 1; k <= 2; ++k) {
    RunResult r;
    r.index = k;
    r.executions = 2;
    r.benchmarks.push_back(BenchmarkRun{"BenchmarkA-2", "x", 10, {{"ns/op", 100}}});
    RunResult clean;
    clean.executions = 2;
    clean.duration_s = 0.5;
    clean.benchmarks = r.benchmarks;
    take_clean_benchmarks(r, clean);
    f.runs.push_back(r);
  }
  const ResultFile back = result_from_json_text(result_to_json_text(f), "test");
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[0].clean_executions, 2);
  EXPECT_EQ(back.runs[0].probed_executions, 2);
  EXPECT_DOUBLE_EQ(back.runs[0].clean_duration_s, 0.5);
  EXPECT_EQ(source_of(back.runs),
            "benchmark figures from 4 clean executions (no probe attached); function figures from 4 probed ones");

  // A result written before: no clean execution recorded, so the figures came with the probes.
  RunResult old;
  old.executions = 3;
  old.benchmarks = f.runs[0].benchmarks;
  ResultFile before;
  before.runs.push_back(old);
  const ResultFile old_back = result_from_json_text(result_to_json_text(before), "test");
  EXPECT_EQ(old_back.runs[0].clean_executions, 0);
  EXPECT_EQ(old_back.runs[0].probed_executions, 3);
  EXPECT_NE(source_of(old_back.runs).find("from probed executions"), std::string::npos);

  RunResult only;
  only.executions = 1;
  only.benchmarks = f.runs[0].benchmarks;
  mark_all_clean(only);
  EXPECT_EQ(source_of({only}),
            "benchmark figures from 1 clean execution (no probe attached); no function probed (benchmarks only)");
  EXPECT_EQ(source_of({RunResult{}}), "");  // no benchmark figures: nothing to say
}

}  // namespace
}  // namespace gate::runner
