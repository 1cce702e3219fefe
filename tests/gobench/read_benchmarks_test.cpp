// The runner's hook: a run's stdout file into RunResult::benchmarks, warnings logged and kept,
// and a run that printed no result is an error (exit 3) naming the workload.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "runner/benchmarks.hpp"

namespace gate::runner {
namespace {

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

TEST(ReadBenchmarks, NothingWithoutTheConfigKey) {
  StdoutFile out("BenchmarkA-2  10  5 ns/op\n");
  Config c = go_config();
  c.benchmarks = "none";
  RunResult r;
  read_benchmarks(c, out.path, "run 1", r, nullptr);
  EXPECT_TRUE(r.benchmarks.empty());
}

}  // namespace
}  // namespace gate::runner
