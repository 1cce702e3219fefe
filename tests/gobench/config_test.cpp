// The `benchmarks:` key of gate.yaml, and the shipped Go-benchmark config of the example.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "runner/config.hpp"

namespace gate::runner {
namespace {

const std::string kBase =
    "binary: bin/x.test\nworkload: bin/x.test -test.run '^$' -test.bench . -test.benchtime 100x\nfunctions: [x.F]\n";

TEST(BenchmarksConfig, GoOrNoneOnlyWithAWorkload) {
  EXPECT_EQ(parse_config(kBase, "/tmp/g.yaml").benchmarks, "none");
  EXPECT_EQ(parse_config(kBase + "benchmarks: go\n", "/tmp/g.yaml").benchmarks, "go");
  try {
    parse_config(kBase + "benchmarks: rust\n", "/tmp/g.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/tmp/g.yaml:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("use go"), std::string::npos) << e.what();
  }
  try {
    parse_config("binary: bin/x\nservice: {command: bin/x, load: bin/load}\nfunctions: [x.F]\nbenchmarks: go\n",
                 "/tmp/g.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("service"), std::string::npos) << e.what();
  }
}

// benchmark_cpu: true only where benchmarks are read.
TEST(BenchmarksConfig, BenchmarkCpuNeedsGoBenchmarks) {
  EXPECT_FALSE(parse_config(kBase + "benchmarks: go\n", "/tmp/g.yaml").benchmark_cpu);
  EXPECT_TRUE(parse_config(kBase + "benchmarks: go\nbenchmark_cpu: true\n", "/tmp/g.yaml").benchmark_cpu);
  try {
    parse_config(kBase + "benchmark_cpu: true\n", "/tmp/g.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("benchmark_cpu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("set benchmarks: go"), std::string::npos) << e.what();
  }
}

// functions: may be left out with benchmarks: go (a benchmarks-only gate), and only then.
TEST(BenchmarksConfig, FunctionsOptionalOnlyWithGoBenchmarks) {
  const std::string head = "binary: bin/x.test\nworkload: bin/x.test -test.run '^$' -test.bench .\n";
  const Config only = parse_config(head + "benchmarks: go\n", "/tmp/g.yaml");
  EXPECT_TRUE(only.functions.empty());
  EXPECT_TRUE(only.benchmarks_only());
  EXPECT_TRUE(only.clean_benchmarks());
  const Config both = parse_config(kBase + "benchmarks: go\n", "/tmp/g.yaml");
  EXPECT_FALSE(both.benchmarks_only());
  EXPECT_TRUE(both.clean_benchmarks());
  EXPECT_FALSE(parse_config(kBase, "/tmp/g.yaml").clean_benchmarks());
  for (const std::string& text : {head, head + "benchmarks: none\n"}) {
    try {
      parse_config(text, "/tmp/g.yaml");
      FAIL() << "no error for:\n" << text;
    } catch (const Error& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find("'functions'"), std::string::npos) << w;
      EXPECT_NE(w.find("is missing"), std::string::npos) << w;
      EXPECT_NE(w.find("benchmarks: go"), std::string::npos) << w;  // the fix names the way out
    }
  }
  try {  // an empty list is a mistake, benchmarks or not
    parse_config(head + "benchmarks: go\nfunctions: []\n", "/tmp/g.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at least one function"), std::string::npos) << e.what();
  }
}

TEST(BenchmarksConfig, TheExamplesBenchmarkConfigIsValid) {
  const Config c = load_config(std::string(GATE_SOURCE_DIR) + "/examples/shop/gate-bench.yaml");
  EXPECT_EQ(c.benchmarks, "go");
  EXPECT_EQ(c.build, "go test -c -o bin/shop.test .");
  // The pitfalls the README names: no tests, a fixed b.N, one result per run.
  EXPECT_NE(c.workload.find("-test.run '^$'"), std::string::npos) << c.workload;
  EXPECT_NE(c.workload.find("-test.benchtime 100x"), std::string::npos) << c.workload;
  EXPECT_NE(c.workload.find("-test.count 1"), std::string::npos) << c.workload;
  EXPECT_EQ(c.env.at("GOMAXPROCS"), "2");
}

}  // namespace
}  // namespace gate::runner
