// The sampled instrument end to end (issue 39), as root, on tests/go/hotloop: main.hot does ~2 us of
// its own CPU work a call, 100,000 calls an execution, so its probes (a single-stepped ret costs
// 6-22 us a hit on a VM) are most of its probed time. With the config's defaults (measure: auto)
// and a 5% band:
//   (a) gate run shows main.hot's cpu/call, its window's probe share and "both" as what judges it;
//   (b) gate ab base vs head (~8% more work in hot's own loop, -tags gateslow8): main.hot judged by
//       its latency and its samples, flagged by its cpu/call (exit 1), nothing else flagged, the
//       first pair a pilot (issue 54: each test asserts the verdict it was built for; the lab,
//       tests/bench/sampled_lab.sh, flagged this head 10 of 10 at 5-7 pairs);
//   (c) gate ab base vs base exits 0 and flags nothing;
//   (d) with two -randlayout variants a side, a function short of samples is sampled in executions
//       without probes (the bug cf76939 fixed; this test fails without that fix).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "probe/probe_fixture.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

struct Hotloop {
  fs::path dir;
  std::string base, head;
  Hotloop() {
    dir = fs::temp_directory_path() / ("gate-sampled-" + std::to_string(getpid()));
    fs::create_directories(dir);
    GoBuild b;
    b.src_dir = (fs::path(GATE_SOURCE_DIR) / "tests" / "go" / "hotloop").string();
    base = build_go(b);
    b.flags = {"-tags=gateslow8"};
    head = build_go(b);
  }
  ~Hotloop() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // tests/go/hotloop/gate.yaml's settings with the binaries given on the command line.
  std::string config() const {
    const std::string cfg = (dir / "gate.yaml").string();
    std::ofstream(cfg) << "name: hotloop\n"
                       << "binary: " << base << "\n"
                       << "workload: exec \"$GATE_BINARY\"\n"
                       << "runs: 5\nmax_runs: 20\ntimeout: 300s\n"
                       << "env: {GOMAXPROCS: \"2\"}\n"
                       << "measure: auto\nquantiles: [p50]\nthreshold: 5%\n"
                       << "functions: [main.hot, main.fnvLoop, main.floatMix, main.sieve, main.matMul, "
                          "main.popLoop, main.insertionSort]\n";
    return cfg;
  }
};

nlohmann::json report_of(const fs::path& dir) {
  std::ifstream in(dir / "report.json");
  return nlohmann::json::parse(in);
}

const nlohmann::json& function_of(const nlohmann::json& r, const std::string& name) {
  for (const auto& f : r["functions"])
    if (f["name"] == name) return f;
  throw std::runtime_error(name + " not in the report");
}

void print_trial(const char* what, const CliOutcome& o, const nlohmann::json& r) {
  const auto& hot = function_of(r, "main.hot");
  const auto& q = hot["quantiles"][0];
  std::printf("--- %s: exit %d, main.hot by %s: %s %s %.3f [%.3f, %.3f] at %d pairs\n%s\n", what, o.code,
              hot["instrument"].get<std::string>().c_str(), hot["verdict"].get<std::string>().c_str(),
              q["name"].get<std::string>().c_str(), q["ratio"].get<double>(), q["ci_low"].get<double>(),
              q["ci_high"].get<double>(), r["base_runs"].get<int>(), o.out.c_str());
}

// The line of gate run's table that starts with `prefix` ("" when none).
std::string table_row(const std::string& out, const std::string& prefix) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

TEST(SampledE2e, RunShowsTheInstrumentAndProbeShare) {
  GATE_REQUIRE_ROOT();
  const Hotloop h;
  const auto o = run_gate({"run", "-c", h.config(), "--runs", "1"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  std::printf("%s\n", o.out.c_str());
  const std::string hot = table_row(o.out, "main.hot ");
  ASSERT_FALSE(hot.empty()) << o.out;
  EXPECT_NE(o.out.find("cpu/call"), std::string::npos) << o.out;
  EXPECT_NE(hot.find(" both "), std::string::npos) << "measure: auto judges main.hot by both instruments: " << hot;
  EXPECT_NE(o.out.find("a traced call here, measured as the run started"), std::string::npos)
      << "gate run measures what a traced call's probes cost:\n" << o.out;
  EXPECT_NE(o.out.find("main.matMul"), std::string::npos);
}

// calls: entry: the entry probes alone count every call (hotloop calls main.hot 100,000 times an
// execution, exactly) and time nothing: the functions are measured by samples.
TEST(SampledE2e, CallsEntryCountsEveryCallWithoutReturnProbes) {
  GATE_REQUIRE_ROOT();
  const Hotloop h;
  const std::string cfg = h.config();
  std::ofstream(cfg, std::ios::app) << "calls: entry\n";
  const auto o = run_gate({"run", "-c", cfg, "--runs", "1"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  std::printf("%s\n", o.out.c_str());
  const std::string hot = table_row(o.out, "main.hot ");
  ASSERT_FALSE(hot.empty()) << o.out;
  EXPECT_NE(hot.find(" 100000 "), std::string::npos) << "every call counted by the entry probe: " << hot;
  EXPECT_NE(hot.find(" samples "), std::string::npos) << "calls: entry is measured by samples: " << hot;
}

TEST(SampledE2e, AbCatchesEightPercentInAHotFunctionAndPassesAA) {
  GATE_REQUIRE_ROOT();
  const Hotloop h;
  const std::string cfg = h.config();
  const fs::path slow_dir = h.dir / "slow", same_dir = h.dir / "same";
  // At most 30 pairs (the config's 20, and room). main.hot's p50 cannot say unchanged here: its code is ~30% of its
  // window by its samples (probes estimated at ~45%), so its band for unchanged is ~1.5% and the 8%
  // moves the window ~2.4% (a CI run of 2026-12-02 stopped at 6 pairs on its p50's "unchanged" under
  // the estimate's 2.75% band, cpu/call 1.09x [0.98, 1.21]; Instrument.TheCodeShareBySamplesNarrows-
  // TheUnchangedBand). Its cpu/call decides, 2.5% noise a pair here: 8% against a 5% band after Holm
  // over 15 tests and the looks wants ~10-20 pairs: 3 tries here on 2026-12-02 decided at 13, 12
  // and 20 pairs (12 left another a suspect at 12). An undecided try only costs the time.
  const auto slow = run_gate({"ab", "-c", cfg, "--base-binary", h.base, "--head-binary", h.head, "--report-dir",
                              slow_dir.string(), "--out-head", (h.dir / "slow-head.json").string(), "--max-runs", "30"});
  ASSERT_TRUE(fs::exists(slow_dir / "report.json")) << slow.out << slow.err;
  const auto rs = report_of(slow_dir);
  print_trial("head, 8% more own work", slow, rs);
  const auto& hot = function_of(rs, "main.hot");
  EXPECT_EQ(hot["instrument"], "probes+samples") << "auto judges main.hot by both instruments";
  const nlohmann::json* cpu = nullptr;
  for (const auto& q : hot["quantiles"])
    if (q["name"] == "cpu/call") cpu = &q;
  ASSERT_NE(cpu, nullptr) << hot.dump(1);
  EXPECT_GT(hot["window"]["probe_share"].get<double>(), 0.3) << "its window is mostly gate's probes: " << hot.dump(1);
  EXPECT_EQ(slow.code, 1) << slow.out << slow.err;
  EXPECT_EQ(hot["verdict"], "regression") << hot.dump(1);
  EXPECT_EQ((*cpu)["verdict"], "regression") << "its samples carry the 8%: " << cpu->dump(1);
  for (const auto& name : regressions(slow.out)) EXPECT_EQ(name, "main.hot") << slow.out;
  // The first pair is the pilot: its trial execution gave the probe cost; in no test.
  std::ifstream head_json(h.dir / "slow-head.json");
  const auto head_result = nlohmann::json::parse(head_json);
  ASSERT_GE(head_result["runs"].size(), 2u);
  EXPECT_TRUE(head_result["runs"][0].value("pilot", false)) << "the first pair is the pilot";
  EXPECT_GT(head_result["runs"][0].value("trial_cpu_s", -1.0), 0) << "its trial execution's CPU time is recorded";
  for (size_t i = 1; i < head_result["runs"].size(); ++i) EXPECT_FALSE(head_result["runs"][i].value("pilot", false)) << i;
  EXPECT_EQ((*cpu)["units"].get<int>(), static_cast<int>(head_result["runs"].size()) - 1)
      << "the sampled test compares every pair but the pilot";

  // One look (--max-runs = runs): a false alarm fails as before; an undecided A/A passed at any look.
  const auto same = run_gate({"ab", "-c", cfg, "--base-binary", h.base, "--head-binary", h.base, "-q", "--report-dir",
                              same_dir.string(), "--max-runs", "5"});
  ASSERT_TRUE(fs::exists(same_dir / "report.json")) << same.out << same.err;
  print_trial("A/A", same, report_of(same_dir));
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_TRUE(regressions(same.out).empty()) << same.out;
}

// Layout variants (Go 1.23+ -ldflags=-randlayout builds, two a side, as ci/pre-merge.sh gives):
// a function short of samples a unit is sampled apart, in executions without probes, as with one
// binary a side. Before cf76939 gate read the trial's bare execution time from the variant that
// had not run it (0 s) and grew the probed units instead ("units of N executions from the second
// pair on"): every pre-merge run on Go 1.23+ measured its sampled functions with the probes on.
// hotloop at 2,000 calls an execution (~4 ms of main.hot's own CPU, ~20 samples at 4999 Hz) in
// units of ~0.05 s (one or two executions) is that function. Asserted: the plan's line, main.hot by
// samples, and the units' sampled executions in the result files; and, an A/A, exit 0 with nothing flagged.
TEST(SampledE2e, LayoutVariantsSampleApartWithoutProbes) {
  GATE_REQUIRE_ROOT();
  GoToolchain go;
  for (const auto& tc : go_toolchains())
    if (tc.minor() >= 23) go = tc;  // -randlayout needs Go 1.23 or later; the newest is taken
  if (go.go.empty()) GTEST_SKIP() << "SKIPPED LOUDLY: no Go >= 1.23 for -randlayout (ci/setup.sh installs one)";
  const Hotloop h;
  std::string variants[2];
  for (int seed = 1; seed <= 2; ++seed) {
    GoBuild b;
    b.src_dir = (fs::path(GATE_SOURCE_DIR) / "tests" / "go" / "hotloop").string();
    b.toolchain = go;
    b.flags = {"-ldflags=-randlayout=" + std::to_string(seed)};
    variants[seed - 1] = build_go(b);
  }
  ASSERT_NE(variants[0], variants[1]);
  const std::string cfg = (h.dir / "layouts.yaml").string();
  std::ofstream(cfg) << "name: hotloop\n"
                     << "binary: " << variants[0] << "\n"
                     << "workload: exec \"$GATE_BINARY\" -calls 2000 -others 10\n"
                     << "runs: 5\nmax_runs: 5\ntimeout: 300s\nmin_unit_seconds: 0.05\n"
                     << "env: {GOMAXPROCS: \"2\"}\n"
                     << "measure: auto\nquantiles: [p50]\nthreshold: 5%\nfunctions: [main.hot]\n";
  const fs::path dir = h.dir / "layouts";
  const std::string out_head = (h.dir / "layouts-head.json").string();
  const auto o = run_gate({"ab", "-c", cfg, "--base-binary", variants[0], "--base-binary", variants[1], "--head-binary",
                           variants[0], "--head-binary", variants[1], "--report-dir", dir.string(), "--out-head", out_head});
  ASSERT_TRUE(fs::exists(dir / "report.json")) << o.out << o.err;
  std::printf("%s\n%s\n", o.err.c_str(), o.out.c_str());
  EXPECT_NE(o.err.find("executions a unit without probes"), std::string::npos)
      << "main.hot short of samples is sampled apart with layout variants:\n" << o.err;
  EXPECT_EQ(o.err.find("executions from the second pair on"), std::string::npos)
      << "the probed units grew instead of executions without probes:\n" << o.err;
  const auto report = report_of(dir);
  EXPECT_EQ(function_of(report, "main.hot")["instrument"], "probes+samples");
  std::ifstream in(out_head);
  const auto head = nlohmann::json::parse(in);
  ASSERT_GE(head["runs"].size(), 2u);
  for (size_t i = 1; i < head["runs"].size(); ++i)
    EXPECT_GT(head["runs"][i].value("sampled_executions", 0), 0) << "unit " << i << " ran executions without probes";
  // The same two variants a side: an A/A, which must flag nothing (issue 54: it accepted exit 1).
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(regressions(o.out).empty()) << o.out;
}

}  // namespace
}  // namespace gate::testing
