// The Go benchmark format reader on hand-written edge cases: malformed result lines are warnings
// naming the line, configuration and Unit lines, units kept whatever they are, name suffixes.
#include <gtest/gtest.h>

#include "gobench/benchfmt.hpp"

namespace gate::gobench {
namespace {

TEST(Benchfmt, ReadsResultsConfigurationAndEveryUnit) {
  const auto p = parse(
      "goos: linux\n"
      "goarch: amd64\n"
      "pkg: example.com/a\n"
      "cpu: Some CPU @ 2.50GHz\n"
      "BenchmarkOne-8   \t 1000\t  1234 ns/op\t  64 B/op\t 1 allocs/op\n"
      "pkg: example.com/b\n"
      "BenchmarkTwo/sub=1/x-8  5  3.5e3 ns/op  12.25 furlongs/fortnight\n"
      "PASS\n"
      "ok  \texample.com/a\t0.123s\n",
      "out");
  ASSERT_EQ(p.benchmarks.size(), 2u);
  EXPECT_TRUE(p.warnings.empty());
  const auto& a = p.benchmarks[0];
  EXPECT_EQ(a.name, "BenchmarkOne-8");
  EXPECT_EQ(a.pkg, "example.com/a");
  EXPECT_EQ(a.iterations, 1000u);
  ASSERT_EQ(a.metrics.size(), 3u);
  EXPECT_EQ(a.metrics[0], (std::pair<std::string, double>{"ns/op", 1234}));
  EXPECT_EQ(a.metrics[1], (std::pair<std::string, double>{"B/op", 64}));
  EXPECT_EQ(a.metrics[2], (std::pair<std::string, double>{"allocs/op", 1}));
  const auto& b = p.benchmarks[1];
  EXPECT_EQ(b.pkg, "example.com/b");  // a configuration line applies to the results after it
  ASSERT_EQ(b.metrics.size(), 2u);
  EXPECT_EQ(b.metrics[0].second, 3500);
  EXPECT_EQ(b.metrics[1], (std::pair<std::string, double>{"furlongs/fortnight", 12.25}));  // unknown unit: kept
  EXPECT_EQ(p.config.at("goos"), "linux");
  EXPECT_EQ(p.config.at("cpu"), "Some CPU @ 2.50GHz");
  EXPECT_EQ(p.config.at("pkg"), "example.com/b");
}

TEST(Benchfmt, MalformedResultLinesAreWarningsNamingTheLine) {
  const auto p = parse(
      "BenchmarkPrints-2   \thello from the benchmark\n"  // it printed to stdout mid-line
      "BenchmarkNoUnit-2  10  123 ns/op  64\n"
      "BenchmarkNoCount-2\n"
      "BenchmarkNoValue-2  10\n"
      "BenchmarkBadValue-2  10  abc ns/op\n"
      "BenchmarkNaN-2  10  NaN ns/op\n"
      "BenchmarkGood-2  10  5 ns/op\n",
      "run 3 stdout");
  ASSERT_EQ(p.benchmarks.size(), 1u);
  EXPECT_EQ(p.benchmarks[0].name, "BenchmarkGood-2");
  ASSERT_EQ(p.warnings.size(), 6u);
  EXPECT_NE(p.warnings[0].find("run 3 stdout:1: \"BenchmarkPrints-2"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("did the benchmark print to stdout?"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[1].find(":2: "), std::string::npos);
  EXPECT_NE(p.warnings[1].find("\"64\" has no unit"), std::string::npos) << p.warnings[1];
  EXPECT_NE(p.warnings[2].find("no iteration count"), std::string::npos) << p.warnings[2];
  EXPECT_NE(p.warnings[3].find("no measurement"), std::string::npos) << p.warnings[3];
  EXPECT_NE(p.warnings[4].find("\"abc\" of unit \"ns/op\" is not a finite number"), std::string::npos);
  EXPECT_NE(p.warnings[5].find(":6: "), std::string::npos);
}

TEST(Benchfmt, OtherLinesAreIgnoredAsBenchfmtDoes) {
  const auto p = parse(
      "Benchmarking is fun: not a result (lower-case after the prefix)\n"
      "Key: upper-case keys are not configuration\n"
      "my key: nor keys with spaces\n"
      "--- BENCH: BenchmarkX-2\n"
      "    bench_test.go:12: a log line\n"
      "commit-id: abc123\r\n"
      "\n",
      "out");
  EXPECT_TRUE(p.benchmarks.empty());
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.config, (std::map<std::string, std::string>{{"commit-id", "abc123"}}));
}

TEST(Benchfmt, UnitLinesDeclareDirection) {
  const auto p = parse("Unit frobs/op better=higher assume=exact\nUnit ns/op assume=nothing\n", "out");
  EXPECT_EQ(p.higher_is_better, std::vector<std::string>{"frobs/op"});
  EXPECT_TRUE(higher_is_better("frobs/op", p.higher_is_better));
  EXPECT_TRUE(higher_is_better("MB/s", {}));
  EXPECT_FALSE(higher_is_better("ns/op", {}));
  EXPECT_FALSE(higher_is_better("furlongs", {}));
  EXPECT_FALSE(higher_is_better("/s", {}));
}

TEST(Benchfmt, BaseNameDropsOnlyTheGomaxprocsSuffix) {
  EXPECT_EQ(base_name("BenchmarkA-8"), "BenchmarkA");
  EXPECT_EQ(base_name("BenchmarkA/b-c=1-16"), "BenchmarkA/b-c=1");
  EXPECT_EQ(base_name("BenchmarkA/size-x"), "BenchmarkA/size-x");
  EXPECT_EQ(base_name("BenchmarkA"), "BenchmarkA");
  EXPECT_EQ(base_name("BenchmarkA-"), "BenchmarkA-");
}

}  // namespace
}  // namespace gate::gobench
