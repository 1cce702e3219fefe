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
