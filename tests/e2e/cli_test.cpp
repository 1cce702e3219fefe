// End-to-end tests of the gate CLI: exit codes and error messages for bad input (no root needed
// up to the BPF step), and as root: a real run, a failing workload, an interrupted run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "probe/probe_fixture.hpp"
#include "results/result.hpp"
#include "support/gate_cli.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

using Outcome = CliOutcome;

// gate with args; `during(pid)` runs meanwhile; `prefix` goes before gate on the command line.
Outcome gate_cli(const std::vector<std::string>& args, const std::function<void(pid_t)>& during = nullptr,
                 const std::vector<std::string>& prefix = {}) {
  return run_gate(args, {.env = {}, .prefix = prefix, .during = during});
}

std::string write_config(const std::string& name, const std::string& yaml) {
  const fs::path dir = fs::temp_directory_path() / ("gate-cli-cfg-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string p = (dir / name).string();
  std::ofstream(p) << yaml;
  return p;
}

TEST(Cli, VersionAndHelp) {
  auto v = gate_cli({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.out.find("gate "), std::string::npos) << v.out;
  auto h = gate_cli({"run", "--help"});
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("Examples"), std::string::npos) << h.out;
  auto none = gate_cli({});
  EXPECT_EQ(none.code, 2);
}

// Compensation is opt-in (--true-time); asking for it and for no accounting at all, or for a new
// calibration without it, is a usage error naming both flags, before anything is measured.
TEST(Cli, TrueTimeFlagsThatContradictAreUsageErrors) {
  auto both = gate_cli({"run", "-c", "/nonexistent/gate.yaml", "--true-time", "--raw-times"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE((both.out + both.err).find("--true-time excludes --raw-times"), std::string::npos) << both.err;
  auto recal = gate_cli({"check", "-c", "/nonexistent/gate.yaml", "--recalibrate"});
  EXPECT_EQ(recal.code, 2);
  EXPECT_NE((recal.out + recal.err).find("--recalibrate requires --true-time"), std::string::npos) << recal.err;
}

// A baseline of wall times checked with exclude_preemption (or the other way round) is refused
// before anything is measured: exit 2, naming the baseline, both time bases and the fix. Unless
// told which, gate check measures as its baseline was: no refusal.
TEST(Cli, CheckRefusesABaselineOfTheOtherTimeBasis) {
  ResultFile base;
  base.context.binary_path = probetarget_binary();
  base.functions.push_back(FunctionInfo{});
  base.functions[0].name = "main.spinFor";
  for (int i = 1; i <= 3; ++i) {
    RunResult run;
    run.index = i;
    FunctionRun f;
    f.name = "main.spinFor";
    f.histogram.add(1000, 10);
    f.calls = 10;
    f.sum_ns = 10000;
    f.min_ns = f.max_ns = 1000;
    run.functions.push_back(f);
    base.runs.push_back(run);
  }
  const std::string wall = write_config("wall.json", result_to_json_text(base));
  const std::string cfg = write_config("ep.yaml", "binary: " + probetarget_binary() +
                                                      "\nworkload: /bin/false\nexclude_preemption: true\n"
                                                      "functions: [main.spinFor]\n");
  auto r = gate_cli({"check", "-c", cfg, "--baseline", wall, "--no-build"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("baseline " + wall), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("as wall time (preemption in), the head with preemption excluded"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("run 1"), std::string::npos) << "measured before refusing: " << r.err;

  base.context.preemption_excluded = true;
  const std::string excluded = write_config("excluded.json", result_to_json_text(base));
  const std::string plain = write_config("plain.yaml", "binary: " + probetarget_binary() +
                                                           "\nworkload: /bin/false\nfunctions: [main.spinFor]\n");
  auto back = gate_cli({"check", "-c", plain, "--baseline", excluded, "--no-build", "--no-exclude-preemption"});
  EXPECT_EQ(back.code, 2) << back.out << back.err;
  EXPECT_NE(back.err.find("drop --no-exclude-preemption / exclude_preemption: false"), std::string::npos) << back.err;
  const std::string told = write_config("told.yaml", "binary: " + probetarget_binary() +
                                                         "\nworkload: /bin/false\nexclude_preemption: false\n"
                                                         "functions: [main.spinFor]\n");
  auto cfg_says = gate_cli({"check", "-c", told, "--baseline", excluded, "--no-build"});
  EXPECT_EQ(cfg_says.code, 2) << cfg_says.out << cfg_says.err;
  EXPECT_NE(cfg_says.err.find("the head as wall time"), std::string::npos) << cfg_says.err;
  // Neither says: measured as the baseline was (the workload /bin/false then fails: exit 3, not
  // a refusal of the time basis).
  auto follows = gate_cli({"check", "-c", plain, "--baseline", excluded, "--no-build"});
  EXPECT_EQ(follows.code, 3) << follows.out << follows.err;
  EXPECT_EQ(follows.err.find("differ by the machine's load"), std::string::npos) << follows.err;
}

TEST(Cli, MissingConfigIsAUsageError) {
  auto r = gate_cli({"run", "-c", "/nonexistent/gate.yaml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/gate.yaml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix:"), std::string::npos) << r.err;
}

TEST(Cli, UnknownConfigKeyNamesItAndTheValidKeys) {
  auto p = write_config("typo.yaml", "binary: /bin/true\nworkload: /bin/true\nfuntions: [main.f]\n");
  auto r = gate_cli({"run", "-c", p});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'funtions'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("functions"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":3"), std::string::npos) << "the line number: " << r.err;
}

TEST(Cli, MissingBinaryNotElfNotGo) {
  auto missing = write_config("m.yaml", "binary: /nonexistent/bin\nworkload: x\nfunctions: [main.f]\n");
  auto r1 = gate_cli({"run", "-c", missing});
  EXPECT_EQ(r1.code, 2);
  EXPECT_NE(r1.err.find("does not exist"), std::string::npos) << r1.err;

  auto text = write_config("notelf.txt", "hello, I am not an ELF file\n");
  auto notelf = write_config("n.yaml", "binary: " + text + "\nworkload: x\nfunctions: [main.f]\n");
  auto r2 = gate_cli({"run", "-c", notelf});
  EXPECT_EQ(r2.code, 2);
  EXPECT_NE(r2.err.find("ELF"), std::string::npos) << r2.err;

  auto notgo = write_config("g.yaml", "binary: /bin/true\nworkload: /bin/true\nfunctions: [main.f]\n");
  auto r3 = gate_cli({"run", "-c", notgo});
  EXPECT_EQ(r3.code, 2);
  EXPECT_NE(r3.err.find("not a Go binary"), std::string::npos) << r3.err;
}

TEST(Cli, UnknownFunctionListsNearestMatches) {
  auto p = write_config("u.yaml", "binary: " + probetarget_binary() + "\nworkload: x\nfunctions: [main.spinfor]\n");
  auto r = gate_cli({"run", "-c", p});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("main.spinfor"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("main.spinFor"), std::string::npos) << "nearest match: " << r.err;
}

TEST(Cli, GlobMatchingNothingIsAnError) {
  auto p = write_config("gl.yaml", "binary: " + probetarget_binary() + "\nworkload: x\nfunctions: ['nosuch.pkg.*']\n");
  auto r = gate_cli({"run", "-c", p});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nosuch.pkg.*"), std::string::npos) << r.err;
}

TEST(Cli, CalibrateWithTooFewRunsSaysSoBeforeRunningAnything) {
  // The workload would leave a file if it ran: a refused --runs must not run it.
  const fs::path ran = fs::temp_directory_path() / ("gate-cal-ran-" + std::to_string(getpid()));
  fs::remove(ran);
  auto p = write_config("cal.yaml", "binary: " + probetarget_binary() + "\nworkload: touch " + ran.string() +
                                        "\nfunctions: [main.spinFor]\n");
  auto r = gate_cli({"calibrate", "-q", "-c", p, "--runs", "3"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--runs 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix: use --runs 5"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(ran)) << "the workload ran";
}

TEST(Cli, FunctionsListsProbePlacement) {
  auto r = gate_cli({"functions", probetarget_binary(), "--match", "main.*", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& f : j) {
    if (f.at("name") == "main.spinFor") {
      found = true;
      EXPECT_EQ(f.at("entry_placement"), "stack-check-jump");
      EXPECT_GE(f.at("returns").get<int>(), 1);
    }
  }
  EXPECT_TRUE(found) << r.out;
}

// Without CAP_BPF/CAP_PERFMON/CAP_SYS_ADMIN (dropped from the bounding set, so even root lacks
// them after exec) gate says which capabilities are missing and how to grant them.
TEST(Cli, NoBpfPermissionNamesTheCapabilities) {
  GATE_REQUIRE_ROOT();
  if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "SKIPPED: no /usr/bin/setpriv (util-linux)";
  auto p = write_config("perm.yaml", "binary: " + probetarget_binary() + "\nworkload: " + probetarget_binary() +
                                         " nested -n 5\nfunctions: [main.outer]\n");
  auto r = gate_cli({"run", "-c", p}, nullptr, {"/usr/bin/setpriv", "--bounding-set=-bpf,-perfmon,-sys_admin", "--"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("CAP_BPF"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CAP_PERFMON"), std::string::npos) << r.err;
  // Root whose bounding set dropped them: setcap cannot help; the fix names the bounding set and the
  // container engine's --cap-add line (probe/probe_engine.cpp, bpf_privileges_fix).
  EXPECT_NE(r.err.find("bounding set"), std::string::npos) << "the fix: " << r.err;
  EXPECT_NE(r.err.find("--cap-add BPF --cap-add PERFMON"), std::string::npos) << "the fix: " << r.err;
}

TEST(Cli, FailingWorkloadExits3WithItsStderr) {
  GATE_REQUIRE_ROOT();
  auto p = write_config("f.yaml", "binary: " + probetarget_binary() + "\nworkload: " + probetarget_binary() +
                                      " fail -code 7\nfunctions: [main.spinFor]\n");
  const std::string out = fs::temp_directory_path() / "gate-cli-fail.json";
  fs::remove(out);
  auto r = gate_cli({"run", "-c", p, "--out", out});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("status 7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulated failure"), std::string::npos) << "stderr tail: " << r.err;
  // What was written is marked partial: it can never become a baseline.
  auto res = load_result_file(out);
  EXPECT_TRUE(res.partial);
}

TEST(Cli, InterruptedRunWritesPartialOutputAndDetaches) {
  GATE_REQUIRE_ROOT();
  auto p = write_config("i.yaml", "binary: " + probetarget_binary() + "\nworkload: " + probetarget_binary() +
                                      " spin -n 300 -us 1000\nruns: 50\nfunctions: [main.spinFor]\n");
  const std::string out = fs::temp_directory_path() / "gate-cli-int.json";
  fs::remove(out);
  auto r = gate_cli({"run", "-c", p, "--out", out}, [](pid_t pid) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    kill(pid, SIGINT);
  });
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("gate: error: gate:"), std::string::npos) << "one prefix: " << r.err;
  auto res = load_result_file(out);
  EXPECT_TRUE(res.partial);
  EXPECT_LT(res.runs.size(), 50u);
  for (const auto& run : res.runs) EXPECT_EQ(run.functions.at(0).calls, 300u) << "completed runs are kept whole";
}

TEST(Cli, RunWritesResultJson) {
  GATE_REQUIRE_ROOT();
  auto p = write_config("r.yaml", "binary: " + probetarget_binary() + "\nworkload: " + probetarget_binary() +
                                      " nested -n 200\nruns: 2\nfunctions: [main.outer, 'main.inn*']\n");
  const std::string out = fs::temp_directory_path() / "gate-cli-run.json";
  auto r = gate_cli({"run", "-c", p, "--out", out, "-q"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << "-q prints nothing but errors: " << r.err;
  EXPECT_NE(r.out.find("main.outer"), std::string::npos) << r.out;
  auto res = load_result_file(out);
  EXPECT_FALSE(res.partial);
  ASSERT_EQ(res.runs.size(), 2u);
  ASSERT_EQ(res.functions.size(), 2u);
  EXPECT_EQ(res.runs[1].find("main.outer")->calls, 200u);
  EXPECT_EQ(res.runs[1].find("main.inner")->calls, 600u);
  EXPECT_FALSE(res.context.go_version.empty());
  EXPECT_FALSE(res.context.build_id.empty());
  EXPECT_FALSE(res.context.kernel.empty());
}

}  // namespace
}  // namespace gate::testing
