// End to end, as root: the shop example's Go benchmarks (bench_test.go) as the workload of gate ab,
// a `go test -c` binary on both sides, (*Cart).Checkout made 4x slower in the head copy through
// SHOP_SLOW. Checked: exit 1, the function (*Cart).Checkout flagged in the function table and
// BenchmarkCartCheckout's ns/op in the benchmark table. Not checked: that nothing else is flagged.
// On this loaded 2-vCPU machine a head that busy-waits is descheduled more, so the functions
// Checkout calls also read slower (pricing.NewRules.func1 1.21x, every function 1.28x together, in
// one run; the issue saw pricing.Apply +40% the same way): real, not a false alarm.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "probe/probe_fixture.hpp"
#include "results/result.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

// First words of the report lines whose verdict is "regression": function names in the function
// table, "BENCHMARK UNIT" in the benchmark table.
std::vector<std::string> regressions(const std::string& report, bool benchmarks) {
  std::vector<std::string> out;
  std::istringstream in(report);
  static const std::regex function_line(R"(^regression\s+(\S+)\s+\d)");
  static const std::regex bench_line(R"(^regression\s+(Benchmark\S+)\s+(\S+)\s)");
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (benchmarks && std::regex_search(l, m, bench_line)) out.push_back(m[1].str() + " " + m[2].str());
    if (!benchmarks && !std::regex_search(l, bench_line) && std::regex_search(l, m, function_line)) out.push_back(m[1]);
  }
  return out;
}

std::string build_shop_test(const fs::path& dir) {
  const std::string out = (dir / "shop.test").string();
  auto r = run_program({default_go().go, "test", "-c", "-o", out, "."}, std::string(GATE_SOURCE_DIR) + "/examples/shop",
                       {{"GOTOOLCHAIN", "local"}, {"GOFLAGS", "-mod=mod"}});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  return out;
}

TEST(GoBenchmarks, AbFlagsTheSlowedBenchmarkAndItsFunction) {
  GATE_REQUIRE_ROOT();
  const fs::path dir = fs::temp_directory_path() / ("gate-gobench-" + std::to_string(getpid()));
  fs::create_directories(dir / "base");
  fs::create_directories(dir / "head");
  const std::string built = build_shop_test(dir);
  fs::copy_file(built, dir / "base" / "shop.test", fs::copy_options::overwrite_existing);
  fs::copy_file(built, dir / "head" / "shop.test", fs::copy_options::overwrite_existing);
  const std::string cfg = (dir / "bench.yaml").string();
  // Fixed 8 pairs (runs = max_runs): the adaptive loop stops at the first paired regression, and
  // both sections are to be judged on the same runs. 4x and 300 iterations because ns/op, a mean
  // over the timed loop, takes every descheduling of a ~2 ms checkout on this loaded 2-vCPU machine:
  // it varied 20-65% per pair at 100 iterations (1.5x was caught only some of the time, and 2x at
  // 100x in 9 of 10 runs), and up to 75% per pair at 300 iterations with three jobs on the two
  // vCPUs (2x at 300x and 14 pairs: 9 of 10 runs), while the function's p50 varied far less.
  // Issue 40 cut the pairs from 14 (at 3x) to 8 and made the step 4x: at that noise (sd ~0.6 of a
  // pair's log ratio) ln 4 over 8 pairs stands ~6 standard errors clear of the 10% band, where
  // ln 2 over 14 pairs stood ~3.8 (the 9 of 10); 3x over 8 would have stood ~4.8.
  std::ofstream(cfg) << "name: shop-bench-e2e\n"
                     << "binary: head/shop.test\n"
                     << "workload: |\n"
                     << "  case \"$GATE_BINARY\" in */head/shop.test) export "
                        "SHOP_SLOW='example.com/shop.(*Cart).Checkout=4';; esac\n"
                     << "  exec \"$GATE_BINARY\" -test.run '^$' -test.bench '^Benchmark(CartCheckout|StoreGet)$' "
                        "-test.benchtime 300x -test.count 1\n"
                     << "benchmarks: go\n"
                     << "runs: 8\nmax_runs: 8\ntimeout: 300s\n"
                     << "env: {GOMAXPROCS: \"2\"}\n"
                     << "threshold: 10%\nquantiles: [p50]\nmeasure: probes\n"
                     << "functions:\n"
                     << "  - example.com/shop.(*Cart).Checkout\n"
                     << "  - example.com/shop.(*Store).Get\n"
                     << "  - example.com/shop.Order.Invoice\n"
                     << "  - example.com/shop/pricing.*\n";
  const std::string json = (dir / "report.json").string(), head = (dir / "head.json").string(),
                    base = (dir / "base.json").string();
  auto r = run_gate({"ab", "-c", cfg, "--base-binary", (dir / "base" / "shop.test").string(), "--head-binary",
                     (dir / "head" / "shop.test").string(), "--out-head", head, "--out-base", base, "--format", "text",
                     "--output", "-", "--format", "json", "--output", json});
  // Each side's ns/op per run, in the order run: what the benchmark's verdict was made of (on a
  // clean-clone run its estimate once read 1.74x [0.52, 6.17] with medians 4x apart; these show why).
  for (const auto& [side, path] : {std::pair{"base", base}, std::pair{"head", head}}) {
    if (!fs::exists(path)) continue;
    std::string line;
    for (const auto& run : load_result_file(path).runs)
      for (const auto& b : run.benchmarks)
        if (b.name.rfind("BenchmarkCartCheckout", 0) == 0)
          for (const auto& [unit, v] : b.metrics)
            if (unit == "ns/op") line += " " + std::to_string(static_cast<long>(v / 1e3));
    std::printf("GATE_FIGURE %s BenchmarkCartCheckout us/op by run:%s\n", side, line.c_str());
  }
  std::printf("--- ab, head's (*Cart).Checkout 4x slower (exit %d):\n%s\n", r.code, r.out.c_str());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const auto functions = regressions(r.out, false), benchmarks = regressions(r.out, true);
  EXPECT_NE(std::find(functions.begin(), functions.end(), "example.com/shop.(*Cart).Checkout"), functions.end()) << r.out;
  EXPECT_NE(std::find(benchmarks.begin(), benchmarks.end(), "BenchmarkCartCheckout-2 ns/op"), benchmarks.end()) << r.out;
  // Each section lists only its own kind: no benchmark in the function table and vice versa.
  for (const auto& f : functions) EXPECT_EQ(f.rfind("Benchmark", 0), std::string::npos) << f;

  // The benchmark figures are stored per run in the result, and the JSON report has the section.
  const auto h = load_result_file(head);
  ASSERT_EQ(h.runs.size(), 8u);
  for (const auto& run : h.runs) {
    ASSERT_EQ(run.benchmarks.size(), 2u);
    EXPECT_EQ(run.benchmarks[0].iterations, 300u);
    EXPECT_EQ(run.benchmark_config.at("pkg"), "example.com/shop");
  }
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("benchmarks"));
  EXPECT_GE(j["benchmarks"]["counts"]["regression"].get<int>(), 1);
  fs::remove_all(dir);
}

// Benchmarks without probes (issue 39): tests/go/hotloop's test binary, whose BenchmarkUprobes
// reports whether its process hit a single-stepped uprobe ("[uprobes]" in /proc/self/maps), and a
// workload line that counts the BPF programs gate (the shell's parent) holds open.
std::string build_hotloop_test(const fs::path& dir, const std::string& name, const std::vector<std::string>& tags = {}) {
  const std::string out = (dir / name).string();
  std::vector<std::string> argv = {default_go().go, "test", "-c", "-o", out};
  argv.insert(argv.end(), tags.begin(), tags.end());
  argv.push_back(".");
  auto r = run_program(argv, std::string(GATE_SOURCE_DIR) + "/tests/go/hotloop",
                       {{"GOTOOLCHAIN", "local"}, {"GOFLAGS", "-mod=mod"}});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  return out;
}

const char* kHotloopWorkload =
    "workload: |\n"
    "  \"$GATE_BINARY\" -test.run '^$' -test.bench '^Benchmark(Hot|Uprobes)$' -test.benchtime 20000x -test.count 1\n"
    "  \"$GATE_BINARY\" -test.run '^$' -test.bench '^BenchmarkRound$' -test.benchtime 20x -test.count 1\n"
    "  n=$(ls -l /proc/$PPID/fd 2>/dev/null | grep -c 'bpf-prog' || true)\n"
    "  echo \"BenchmarkGateBPF 1 $n progs\"\n"
    "benchmarks: go\n"
    "timeout: 300s\n"
    "env: {GOMAXPROCS: \"2\"}\n";

// A metric of a benchmark in a run ("" when absent: NaN).
double metric(const RunResult& run, const std::string& bench_prefix, const std::string& unit) {
  for (const auto& b : run.benchmarks)
    if (b.name.rfind(bench_prefix, 0) == 0)
      for (const auto& [u, v] : b.metrics)
        if (u == unit) return v;
  return std::nan("");
}

// The value of UNIT on the first line of a kept stdout whose benchmark starts with PREFIX.
double metric_in_output(const fs::path& file, const std::string& prefix, const std::string& unit) {
  std::ifstream in(file);
  const std::regex re("^" + prefix + R"(\S*\s+\d+\s.*?\s([0-9.]+) )" + unit + R"((\s|$))");
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, re)) return std::stod(m[1]);
  }
  return std::nan("");
}

// (a) With functions declared: every unit is a probed execution (function figures) and a clean
// one (benchmark figures). The kept outputs show the probed execution hit uprobes and the clean
// one did not; the run JSON says so, and its benchmark figures are the clean ones'.
TEST(GoBenchmarks, RunTakesBenchmarkFiguresFromCleanExecutions) {
  GATE_REQUIRE_ROOT();
  const fs::path dir = fs::temp_directory_path() / ("gate-gobench-clean-" + std::to_string(getpid()));
  fs::create_directories(dir / "out");
  const std::string bin = build_hotloop_test(dir, "hotloop.test");
  const std::string cfg = (dir / "gate.yaml").string();
  std::ofstream(cfg) << "name: hotloop-clean-e2e\nbinary: hotloop.test\n"
                     << kHotloopWorkload << "runs: 2\n"
                     << "functions:\n  - gate.test/hotloop.hot\n  - gate.test/hotloop.fnvLoop\n"
                        "  - gate.test/hotloop.sieve\n";
  const std::string json = (dir / "run.json").string();
  auto r = run_gate({"run", "-c", cfg, "-o", json, "--keep-output", (dir / "out").string()});
  std::printf("--- gate run, functions declared (exit %d):\n%s\n%s\n", r.code, r.out.c_str(), r.err.c_str());
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto res = load_result_file(json);
  EXPECT_FALSE(res.context.attach_mode.empty());
  ASSERT_EQ(res.runs.size(), 2u);
  for (const auto& run : res.runs) {
    EXPECT_GE(run.clean_executions, 1) << "run " << run.index;
    EXPECT_EQ(run.probed_executions, run.executions) << "run " << run.index;
    EXPECT_GT(run.clean_duration_s, 0) << "run " << run.index;
    const FunctionRun* hot = run.find("gate.test/hotloop.hot");
    ASSERT_NE(hot, nullptr);
    EXPECT_GT(hot->calls, 0u) << "the function figures come from the probed execution";
    EXPECT_EQ(metric(run, "BenchmarkUprobes", "uprobes"), 0.0) << "the benchmark figures hit no uprobe";
    EXPECT_GT(metric(run, "BenchmarkHot", "ns/op"), 0.0);
    EXPECT_GE(metric(run, "BenchmarkGateBPF", "progs"), 1.0) << "gate held its probes meanwhile";
  }
  // The detector works: the probed execution's own output says it hit uprobes; the clean one's not.
  EXPECT_EQ(metric_in_output(dir / "out" / "run-1.stdout", "BenchmarkUprobes", "uprobes"), 1.0);
  EXPECT_EQ(metric_in_output(dir / "out" / "run-1-clean.stdout", "BenchmarkUprobes", "uprobes"), 0.0);
  EXPECT_NE(r.out.find("benchmark figures from 2 clean executions"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// (b) A benchmarks-only config (no functions:): no BPF program loaded, no attach mode, no function
// figures, every execution clean. (Its gate ab, whose verdict is asserted: BenchmarksOnlyAb... below.)
TEST(GoBenchmarks, BenchmarksOnlyLoadsNoBpf) {
  GATE_REQUIRE_ROOT();
  const fs::path dir = fs::temp_directory_path() / ("gate-gobench-only-" + std::to_string(getpid()));
  fs::create_directories(dir / "base");
  fs::create_directories(dir / "head");
  build_hotloop_test(dir / "base", "hotloop.test");
  const std::string cfg = (dir / "gate.yaml").string();
  std::ofstream(cfg) << "name: hotloop-bench-only-e2e\nbinary: base/hotloop.test\n"
                     << kHotloopWorkload << "runs: 5\nmax_runs: 5\nmin_unit_seconds: 0.3\nthreshold: 5%\n";
  const std::string json = (dir / "run.json").string();
  auto r = run_gate({"run", "-c", cfg, "-o", json, "--runs", "2"});
  std::printf("--- gate run, benchmarks only (exit %d):\n%s\n%s\n", r.code, r.out.c_str(), r.err.c_str());
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto res = load_result_file(json);
  EXPECT_EQ(res.context.attach_mode, "");
  EXPECT_TRUE(res.functions.empty());
  ASSERT_EQ(res.runs.size(), 2u);
  for (const auto& run : res.runs) {
    EXPECT_TRUE(run.functions.empty());
    EXPECT_EQ(run.probed_executions, 0);
    EXPECT_EQ(run.clean_executions, run.executions);
    EXPECT_EQ(metric(run, "BenchmarkGateBPF", "progs"), 0.0) << "gate loaded no BPF program";
    EXPECT_EQ(metric(run, "BenchmarkUprobes", "uprobes"), 0.0);
    EXPECT_GT(metric(run, "BenchmarkHot", "ns/op"), 0.0);
  }

  // benchmark_cpu: true: each run also holds BenchmarkHot's cpu-ns/op (the execution's CPU time
  // over b.N), from one benchmark an execution. It is at least the loop's own CPU: more than a
  // tenth of its ns/op at any load (a loaded machine stretches ns/op, not the CPU the loop needs).
  const std::string cpu_cfg = (dir / "gate-cpu.yaml").string();
  std::ofstream(cpu_cfg) << "name: hotloop-bench-cpu-e2e\nbinary: base/hotloop.test\n"
                         << "workload: $GATE_BINARY -test.run '^$' -test.bench '^BenchmarkHot$' -test.benchtime 20000x "
                            "-test.count 1\nbenchmarks: go\nbenchmark_cpu: true\nmin_unit_seconds: 0\n";
  const std::string cpu_json = (dir / "run-cpu.json").string();
  auto rc = run_gate({"run", "-c", cpu_cfg, "-o", cpu_json, "--runs", "2"});
  ASSERT_EQ(rc.code, 0) << rc.out << rc.err;
  EXPECT_NE(rc.out.find("cpu-ns/op"), std::string::npos) << rc.out;
  for (const auto& run : load_result_file(cpu_json).runs) {
    const double cpu = metric(run, "BenchmarkHot", "cpu-ns/op"), wall = metric(run, "BenchmarkHot", "ns/op");
    EXPECT_GT(cpu, 0.1 * wall) << "cpu-ns/op " << cpu << ", ns/op " << wall;
  }
  fs::remove_all(dir);
}

// The report's metric (benchmark name prefix, unit) as JSON (null when absent).
nlohmann::json report_metric(const std::string& report, const std::string& prefix, const std::string& unit) {
  std::ifstream in(report);
  const auto j = nlohmann::json::parse(in);
  for (const auto& m : j["benchmarks"]["metrics"])
    if (m["benchmark"].get<std::string>().rfind(prefix, 0) == 0 && m["unit"] == unit) return m;
  return nullptr;
}

// A benchmarks-only gate ab on hotloop's BenchmarkHot with benchmark_cpu: true, 3% band: its A/A
// exits 0, then the head with 8% more work in hot (-tags gateslow8: 1.078x by the program's own
// clock, main.go) exits 1 with BenchmarkHot a regression (cpu-ns/op or ns/op, neither unchanged). Sized from what the A/A
// measures: cpu-ns/op's noise a pair (1.4-3.1% beside a build, docs/how-it-measures.md) sets the
// head's pairs, enough for the head's ~1.07x (process start-up dilutes the loop's 1.078x a little)
// to stand 4 standard errors clear of the band, between 5 and 20 pairs, then on until decided. CPU time, not ns/op: beside
// a build ns/op's noise a pair was 5-50% and the fastest fold flagged this head 4 of 10
// (sampled_lab-bench-cpu-build.txt), where cpu-ns/op flagged it 10 of 10.
TEST(GoBenchmarks, BenchmarksOnlyAbPassesItsAAAndFlagsTheKnownHead) {
  GATE_REQUIRE_ROOT();
  const fs::path dir = fs::temp_directory_path() / ("gate-gobench-head-" + std::to_string(getpid()));
  for (const char* d : {"base", "copy", "head"}) fs::create_directories(dir / d);
  build_hotloop_test(dir / "base", "hotloop.test");
  fs::copy_file(dir / "base" / "hotloop.test", dir / "copy" / "hotloop.test", fs::copy_options::overwrite_existing);
  build_hotloop_test(dir / "head", "hotloop.test", {"-tags", "gateslow8"});
  auto config = [&](int pairs, int max_pairs) {
    const std::string cfg = (dir / ("gate-" + std::to_string(pairs) + ".yaml")).string();
    std::ofstream(cfg) << "name: hotloop-bench-head-e2e\nbinary: base/hotloop.test\n"
                       << "workload: $GATE_BINARY -test.run '^$' -test.bench '^BenchmarkHot$' -test.benchtime 100000x "
                          "-test.count 1\nbenchmarks: go\nbenchmark_cpu: true\nmin_unit_seconds: 0.5\ntimeout: 300s\n"
                       << "env: {GOMAXPROCS: \"2\"}\nthreshold: 3%\nruns: " << pairs << "\nmax_runs: " << max_pairs << "\n";
    return cfg;
  };
  auto ab = [&](const std::string& cfg, const char* head, const std::string& name) {
    const std::string report = (dir / (name + ".json")).string();
    auto r = run_gate({"ab", "-c", cfg, "--base-binary", (dir / "base" / "hotloop.test").string(), "--head-binary",
                       (dir / head / "hotloop.test").string(), "--out-head", (dir / (name + "-head.json")).string(),
                       "--format", "text", "--output", "-", "--format", "json", "--output", report});
    std::printf("--- gate ab, %s (exit %d):\n%s\n%s\n", name.c_str(), r.code, r.out.c_str(), r.err.c_str());
    return std::pair(r, report);
  };
  const auto [aa, aa_report] = ab(config(5, 5), "copy", "aa");
  EXPECT_EQ(aa.code, 0) << "the A/A flags nothing";
  const auto noise = report_metric(aa_report, "BenchmarkHot", kCpuNsPerOp);
  ASSERT_FALSE(noise.is_null()) << aa.out;
  const double sd = noise["noise"].is_number() ? noise["noise"].get<double>() : 0.05;
  const double margin = std::log(1.07 / 1.03);
  const int pairs = std::clamp(static_cast<int>(std::ceil(std::pow(4 * sd / margin, 2))), 5, 20);
  std::printf("sizing: cpu-ns/op noise %.1f%% a pair in the A/A: %d pairs for a 1.07x head at a 3%% band\n", 100 * sd,
              pairs);
  // The A/A's noise is one estimate from 5 pairs, and the head's own pairs may scatter more (a
  // try read 1.07x [1.03, 1.11] at 5 pairs, its lower bound on the band): the head starts at the
  // sized pairs and measures on until decided, as a user's config would, up to 3x them (>= 20).
  const auto [head, head_report] = ab(config(pairs, std::max(20, 3 * pairs)), "head", "head");
  EXPECT_EQ(head.code, 1) << "the 8% head is a regression";
  // BenchmarkHot flagged by either of its metrics, and by neither called unchanged or faster: paired
  // runs stop at the first regression (a regression among pairs is final), so the metric that
  // decides first ends the loop with the other maybe undecided (a try here: ns/op 1.08x [1.06, 1.10]
  // a regression at 5 pairs, cpu-ns/op 1.08x [1.03, 1.15] inconclusive). Under load ns/op stays
  // undecided and cpu-ns/op decides (sampled_lab-bench-cpu-build.txt).
  const auto cpu = report_metric(head_report, "BenchmarkHot", kCpuNsPerOp);
  const auto wall = report_metric(head_report, "BenchmarkHot", "ns/op");
  ASSERT_FALSE(cpu.is_null());
  ASSERT_FALSE(wall.is_null());
  EXPECT_TRUE(cpu["verdict"] == "regression" || wall["verdict"] == "regression") << cpu.dump(1) << wall.dump(1);
  for (const auto* m : {&cpu, &wall})
    EXPECT_TRUE((*m)["verdict"] == "regression" || (*m)["verdict"] == "inconclusive" || (*m)["verdict"] == "suspect")
        << m->dump(1);
  // What a benchmarks-only ab measured: no probe, no BPF, every execution clean.
  const auto h = load_result_file((dir / "head-head.json").string());
  EXPECT_TRUE(h.functions.empty());
  EXPECT_EQ(h.context.attach_mode, "");
  EXPECT_GE(h.runs.size(), 5u);
  for (const auto& run : h.runs) {
    EXPECT_EQ(run.probed_executions, 0);
    EXPECT_EQ(run.clean_executions, run.executions);
    EXPECT_GT(metric(run, "BenchmarkHot", "ns/op"), 0.0);
  }
  std::ifstream in(head_report);
  const auto j = nlohmann::json::parse(in);
  EXPECT_NE(j["benchmarks"]["source"].get<std::string>().find("clean executions"), std::string::npos);
  fs::remove_all(dir);
}

// Real processes at two speeds (issue 54's library benchmark, made on purpose): hotloop's
// BenchmarkModes draws each process's speed at its start, 1.8x apart; the head
// (-tags gatemodesapart) does 12% more work in the fast mode and 6.7% less in the slow one, so over
// processes it moves 1.02x, inside the 5% band, while the fast mode alone moves 1.12x. Asserted:
// exit 0, both sides' modes named, moved apart, the verdict over every mode; and its A/A exits 0
// with the modes named. With the modes' fold undone (judge_modes not called) it failed at load 12:
// no modes named, and the fastest fold read cpu-ns/op 1.06x [0.89, 1.27] (2 executions a unit, so
// some units held no fast-mode execution).
// cpu-ns/op beside ns/op: under load other processes stretch ns/op enough to blur the two speeds,
// CPU time keeps them apart, and an execution's mode labels it in every metric.
TEST(GoBenchmarks, ProcessesAtTwoSpeedsAreNamedAndNotFlaggedOnTheFastMode) {
  GATE_REQUIRE_ROOT();
  const fs::path dir = fs::temp_directory_path() / ("gate-gobench-modes-" + std::to_string(getpid()));
  for (const char* d : {"base", "copy", "head"}) fs::create_directories(dir / d);
  build_hotloop_test(dir / "base", "hotloop.test");
  fs::copy_file(dir / "base" / "hotloop.test", dir / "copy" / "hotloop.test", fs::copy_options::overwrite_existing);
  build_hotloop_test(dir / "head", "hotloop.test", {"-tags", "gatemodesapart"});
  const std::string cfg = (dir / "gate.yaml").string();
  std::ofstream(cfg) << "name: hotloop-modes-e2e\nbinary: base/hotloop.test\n"
                     << "workload: $GATE_BINARY -test.run '^$' -test.bench '^BenchmarkModes$' -test.benchtime 1000x "
                        "-test.count 1\nbenchmarks: go\nbenchmark_cpu: true\nmin_unit_seconds: 0.5\ntimeout: 300s\n"
                     << "env: {GOMAXPROCS: \"2\"}\nthreshold: 5%\nruns: 8\nmax_runs: 8\n";
  auto ab = [&](const char* head, const std::string& name) {
    const std::string report = (dir / (name + ".json")).string();
    auto r = run_gate({"ab", "-c", cfg, "--base-binary", (dir / "base" / "hotloop.test").string(), "--head-binary",
                       (dir / head / "hotloop.test").string(), "--format", "text", "--output", "-", "--format", "json",
                       "--output", report});
    std::printf("--- gate ab, %s (exit %d):\n%s\n%s\n", name.c_str(), r.code, r.out.c_str(), r.err.c_str());
    return std::pair(r, report);
  };
  const auto [head, head_report] = ab("head", "modes-apart");
  EXPECT_EQ(head.code, 0) << "not a regression: over processes the head moved 1.02x";
  for (const char* unit : {"ns/op", kCpuNsPerOp}) {
    const auto m = report_metric(head_report, "BenchmarkModes", unit);
    ASSERT_FALSE(m.is_null()) << unit;
    EXPECT_NE(m["verdict"], "regression") << m.dump(1);
    ASSERT_TRUE(m.contains("modes")) << "named as two modes: " << m.dump(1);
    EXPECT_EQ(m["modes"]["modes"].size(), 2u);
    EXPECT_EQ(m["modes"]["verdict_rests_on"], "every mode") << m.dump(1);
  }
  const auto cpu = report_metric(head_report, "BenchmarkModes", kCpuNsPerOp);
  EXPECT_EQ(cpu["modes"]["found_in"], "both") << cpu.dump(1);
  EXPECT_EQ(cpu["modes"]["apart"], true) << cpu.dump(1);
  EXPECT_NE(head.out.find("2 modes across both sides' executions"), std::string::npos) << head.out;

  const auto [aa, aa_report] = ab("copy", "modes-aa");
  EXPECT_EQ(aa.code, 0) << "the A/A flags nothing";
  const auto aa_cpu = report_metric(aa_report, "BenchmarkModes", kCpuNsPerOp);
  ASSERT_FALSE(aa_cpu.is_null());
  ASSERT_TRUE(aa_cpu.contains("modes")) << aa_cpu.dump(1);
  EXPECT_EQ(aa_cpu["modes"]["apart"], false) << aa_cpu.dump(1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gate::testing
