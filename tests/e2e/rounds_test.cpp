// End-to-end (root): a service is measured in rounds (issue 42). One start per unit, warm-up
// rounds, then k measured load rounds: work done only while the service starts, and the warm-up
// round's requests, are in no figure (exact call counts, with a control run showing the start-up
// function is probed and counted when it runs); a load driver failing in round 2 of 3 fails the
// run with exit 3 and names the round; a round with other calls than the others is reported; and
// gate ab runs both sides' services at once, alternating round by round.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/files.hpp"
#include "probe/probe_fixture.hpp"
#include "results/result.hpp"
#include "runner/rounds.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

const std::string& servicetarget() {
  static const std::string path = [] {
    GoBuild b;
    b.src_dir = std::string(GATE_SOURCE_DIR) + "/tests/go/servicetarget";
    return build_go(b);
  }();
  return path;
}

struct Scratch {
  fs::path dir;
  Scratch() {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / ("gate-rounds-test-" + std::to_string(getpid()) + "-" + t->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr int kStartupCalls = 500;  // startup() calls while the service starts, before it listens
constexpr int kRequests = 40;       // requests per load round (one main.handle call each)

// A service config on servicetarget: `load` is the load command (after "load: "), {port} and {url} free.
std::string rounds_yaml(const std::string& load, int rounds, int warmup_rounds) {
  const std::string& st = servicetarget();
  return "name: rounds\nbinary: " + st + "\nruns: 2\ntimeout: 60s\nservice:\n  command: " + st +
         " serve -addr 127.0.0.1:{port} -startup " + std::to_string(kStartupCalls) +
         "\n  ready_tcp: 127.0.0.1:{port}\n  ready_timeout: 20s\n  load: " + load +
         "\n  rounds: " + std::to_string(rounds) + "\n  warmup_rounds: " + std::to_string(warmup_rounds) +
         "\nfunctions:\n  - main.handle\n  - {name: main.startup, optional: true}\n";
}

// The load, counting its invocations in `counter`: invocation `odd` runs `odd_flags` instead.
std::string counting_load(const std::string& counter, int odd, const std::string& odd_flags,
                          const std::string& flags) {
  const std::string& st = servicetarget();
  return "sh -c 'n=$(cat " + counter + " 2>/dev/null || echo 0); n=$((n+1)); echo $n > " + counter +
         "; if [ $n -eq " + std::to_string(odd) + " ]; then exec " + st + " load -addr 127.0.0.1:{port} " + odd_flags +
         "; fi; exec " + st + " load -addr 127.0.0.1:{port} " + flags + "'";
}

uint64_t calls_of(const RunResult& run, const std::string& fn) {
  const FunctionRun* f = run.find(fn);
  return f ? f->calls : 0;
}

// Start-up work and the warm-up round are in no measured round; the control shows that the probe
// sees startup() when it runs, so a zero in the rounds is not a probe that never fired.
TEST(ServiceRounds, StartupWorkAndWarmupAreNotInTheMeasuredRounds) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string& st = servicetarget();
  const std::string cfg_port = s.write(
      "gate.yaml", rounds_yaml(st + " load -addr 127.0.0.1:{port} -n " + std::to_string(kRequests), 3, 1));
  const auto r = run_gate({"run", "-c", cfg_port, "--out", s.file("r.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto res = load_result_file(s.file("r.json"));
  ASSERT_EQ(res.runs.size(), 2u);
  for (const auto& run : res.runs) {
    EXPECT_EQ(run.executions, 3) << "a unit is 3 measured rounds";
    EXPECT_EQ(calls_of(run, "main.startup"), 0u) << "start-up work counted in unit " << run.index;
    // 3 rounds x 40 requests; the warm-up round's 40 would make 160, one start per round 120 plus startups.
    EXPECT_EQ(calls_of(run, "main.handle"), 3u * kRequests) << "unit " << run.index;
  }
  // The control: the same start-up, as a workload that exits after it, is probed and counted exactly.
  const std::string control = s.write(
      "control.yaml", "name: control\nbinary: " + st + "\nruns: 1\nworkload: " + st +
                          " serve -addr 127.0.0.1:0 -exit-after-startup -startup " + std::to_string(kStartupCalls) +
                          "\nfunctions: [main.startup, {name: main.handle, optional: true}]\n");
  const auto c = run_gate({"run", "-q", "-c", control, "--out", s.file("c.json")});
  ASSERT_EQ(c.code, 0) << c.err;
  const auto cres = load_result_file(s.file("c.json"));
  ASSERT_EQ(cres.runs.size(), 1u);
  EXPECT_EQ(calls_of(cres.runs[0], "main.startup"), static_cast<uint64_t>(kStartupCalls));
}

// {url} is http://<ready_tcp>: a load given it receives the service's address with its port filled.
TEST(ServiceRounds, UrlPlaceholderIsTheServiceAddress) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string& st = servicetarget();
  // The load strips http:// and drives the service: it can only succeed when {url} was filled right.
  const std::string load = "sh -c 'u={url}; case $u in http://127.0.0.1:[0-9]*) ;; *) echo bad url $u >&2; exit 5;; "
                           "esac; exec " + st + " load -addr ${u#http://} -n 10'";
  const std::string cfg = s.write("gate.yaml", rounds_yaml(load, 2, 0));
  const auto r = run_gate({"run", "-q", "-c", cfg, "--runs", "1", "--out", s.file("r.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto res = load_result_file(s.file("r.json"));
  ASSERT_EQ(res.runs.size(), 1u);
  EXPECT_EQ(calls_of(res.runs[0], "main.handle"), 20u);
}

// Invocation 1 is the warm-up round, 2 round 1, 3 round 2: it fails there.
TEST(ServiceRounds, LoadFailingInRoundTwoOfThreeExitsThreeNamingTheRound) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string load = counting_load(s.file("count"), 3, "-fail", "-n 20");
  const std::string cfg = s.write("gate.yaml", rounds_yaml(load, 3, 1));
  const auto r = run_gate({"run", "-q", "-c", cfg, "--runs", "2"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "unit 1, round 2 of 3")) << "names the round: " << r.err;
  EXPECT_TRUE(has(r.err, "load '")) << "names the load driver: " << r.err;
  EXPECT_TRUE(has(r.err, "exited with status 4")) << r.err;
  EXPECT_TRUE(has(r.err, "simulated load failure")) << "quotes the load's stderr: " << r.err;
  EXPECT_TRUE(has(r.err, "fix: ")) << r.err;
  EXPECT_EQ(read_file(s.file("count")).value_or(""), "3\n") << "no round ran after the failing one";
}

// A round with three times the others' requests is reported, naming the unit and round, in the
// log and in the result (the report of check and ab prints it among the warnings).
TEST(ServiceRounds, RoundWithOtherCallsIsReported) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string load = counting_load(s.file("count"), 3, "-n 60", "-n 20");
  const std::string cfg = s.write("gate.yaml", rounds_yaml(load, 3, 1));
  const auto r = run_gate({"run", "-c", cfg, "--runs", "1", "--out", s.file("r.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "unit 1, round 2 of 3 timed 60 calls")) << r.err;
  EXPECT_TRUE(has(r.err, "+200%, past calls_change (50%)")) << r.err;
  const auto res = load_result_file(s.file("r.json"));
  ASSERT_EQ(res.runs.size(), 1u);
  EXPECT_EQ(calls_of(res.runs[0], "main.handle"), 100u);
  const auto it = res.extra.find("round_calls");
  ASSERT_NE(it, res.extra.end());
  EXPECT_TRUE(has(it->second, "round 2 of 3")) << it->second;
  EXPECT_FALSE(has(it->second, "round 1 of 3")) << "rounds within calls_change are not reported: " << it->second;
  const auto notes = runner::recorded_round_calls(res, "head");  // kept as values, worded when shown
  ASSERT_EQ(notes.size(), 1u) << it->second;
  EXPECT_EQ(notes[0].round, "unit 1, round 2 of 3");
  EXPECT_EQ(notes[0].calls, 60u);
  EXPECT_EQ(notes[0].median, 20);
}

// gate ab with {port}: both sides' services up at once, the sides alternating round by round.
// Asserted: every unit of both sides has its 3 rounds' calls exactly, and no service outlived gate.
TEST(ServiceRounds, AbAlternatesRoundsWithBothServicesUp) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string& st = servicetarget();
  const std::string cfg =
      s.write("gate.yaml", rounds_yaml(st + " load -addr 127.0.0.1:{port} -n " + std::to_string(kRequests), 3, 1));
  const auto r = run_gate({"ab", "-c", cfg, "--base-binary", st, "--head-binary", st, "--runs", "3", "--max-runs",
                           "3", "--out-base", s.file("b.json"), "--out-head", s.file("h.json")});
  ASSERT_NE(r.code, 3) << r.err;
  ASSERT_NE(r.code, 2) << r.err;
  for (const auto* side : {"b.json", "h.json"}) {
    const auto res = load_result_file(s.file(side));
    ASSERT_EQ(res.runs.size(), 3u) << side;
    for (const auto& run : res.runs) {
      EXPECT_EQ(run.executions, 3) << side;
      EXPECT_EQ(calls_of(run, "main.handle"), 3u * kRequests) << side << " unit " << run.index;
      EXPECT_EQ(calls_of(run, "main.startup"), 0u) << side << " unit " << run.index;
    }
  }
  // Rounds alternate: the log shows a head round between two base rounds of one unit.
  EXPECT_TRUE(has(r.err, "alternating round by round")) << r.err;
}

}  // namespace
}  // namespace gate::testing
