// The reader against real `go test -bench` output: tests/gobench/benchpkg compiled with `go test -c`
// by every installed Go toolchain and run as gate runs it (-test.bench, -test.benchmem, Nx, count 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "common/subprocess.hpp"
#include "gobench/benchfmt.hpp"
#include "support/go_build.hpp"

namespace gate::gobench {
namespace {

namespace fs = std::filesystem;

std::string bench_output(const testing::GoToolchain& tc) {
  const fs::path src = fs::path(GATE_SOURCE_DIR) / "tests/gobench/benchpkg";
  const fs::path out = fs::path(GATE_BINARY_DIR) / "tests/gobench" / ("benchpkg-go" + tc.version + ".test");
  fs::create_directories(out.parent_path());
  ProcessSpec build;
  build.argv = {tc.go, "test", "-c", "-o", out.string(), "."};
  build.cwd = src.string();
  build.env = {{"GOTOOLCHAIN", "local"}, {"GOFLAGS", "-mod=mod"}, {"GOPROXY", "off"}};
  if (!getenv("GOCACHE")) build.env["GOCACHE"] = std::string(GATE_BINARY_DIR) + "/gocache";
  if (!getenv("HOME")) build.env["HOME"] = GATE_BINARY_DIR;
  build.merge_stderr = true;
  const auto b = run_process(build);
  EXPECT_EQ(b.status, 0) << tc.go << " test -c: " << b.out;
  ProcessSpec run;
  run.argv = {out.string(), "-test.run", "^$", "-test.bench", ".", "-test.benchmem", "-test.benchtime", "20x",
              "-test.count", "2"};
  run.env = {{"GOMAXPROCS", "2"}};
  const auto r = run_process(run);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  return r.out;
}

double metric(const BenchmarkRun& b, const std::string& unit) {
  for (const auto& [u, v] : b.metrics)
    if (u == unit) return v;
  ADD_FAILURE() << b.name << " has no " << unit;
  return -1;
}

// On the representative toolchains (the oldest and newest installed, and 1.26; GATE_TEST_GO_FULL=1:
// every one): each toolchain's first `go test -c` compiles its testing package and the standard
// library beneath it, ~20 s apiece on a fresh machine (184 s for eight in one clean-clone run), and
// the format has not changed between them (README.md, "Supported Go").
TEST(BenchfmtGo, RepresentativeToolchainsOutputParsesExactly) {
  const auto toolchains = testing::representative_toolchains();
  ASSERT_FALSE(toolchains.empty()) << "no Go toolchain installed: run ci/setup.sh";
  for (const auto& tc : toolchains) {
    SCOPED_TRACE("Go " + tc.version);
    const std::string text = bench_output(tc);
    const Parsed p = parse(text, "go" + tc.version);
    EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
    EXPECT_EQ(p.config.at("goos"), "linux");
    EXPECT_EQ(p.config.at("goarch"), "amd64");
    EXPECT_EQ(p.config.at("pkg"), "example.com/benchpkg");
    ASSERT_EQ(p.benchmarks.size(), 10u) << text;  // 5 benchmarks (2 of them sub-benchmarks) x count 2
    std::map<std::string, int> seen;
    for (const auto& b : p.benchmarks) {
      ++seen[b.name];
      EXPECT_EQ(b.iterations, 20u) << b.name;
      EXPECT_EQ(b.pkg, "example.com/benchpkg");
      EXPECT_GT(metric(b, "ns/op"), 0) << b.name;
      const double bytes = metric(b, "B/op"), allocs = metric(b, "allocs/op");  // -test.benchmem
      // At least what the loop allocates: the runtime's own allocations during a 20x run (Go 1.23
      // once showed 313 B/op) are averaged in, so not exactly.
      if (b.name == "BenchmarkAlloc-2") {
        EXPECT_GE(bytes, 64);
        EXPECT_GE(allocs, 1);
      }
      if (b.name == "BenchmarkSub/size=8/half-2") {
        EXPECT_GE(bytes, 8);
      }
      if (b.name == "BenchmarkCustom-2") {
        EXPECT_EQ(metric(b, "widgets/op"), 42.5);
        EXPECT_EQ(metric(b, "frobs"), 7);
      }
      if (b.name == "BenchmarkThroughput-2") {
        EXPECT_GT(metric(b, "MB/s"), 0);
        EXPECT_TRUE(higher_is_better("MB/s", p.higher_is_better));
      }
    }
    const std::map<std::string, int> want{{"BenchmarkAlloc-2", 2},
                                          {"BenchmarkCustom-2", 2},
                                          {"BenchmarkSub/size=1/half-2", 2},
                                          {"BenchmarkSub/size=8/half-2", 2},
                                          {"BenchmarkThroughput-2", 2}};
    EXPECT_EQ(seen, want);
    EXPECT_EQ(base_name("BenchmarkSub/size=1/half-2"), "BenchmarkSub/size=1/half");
  }
}

}  // namespace
}  // namespace gate::gobench
