// End-to-end (root): gate never measures nothing. A foreign listener on ready_tcp (with and without
// SO_REUSEPORT, before the service starts or spawned outside its tree), a workload that reaches no
// declared function, one function never called, a service dying under load and a failing load
// driver: each asserts gate's exit code, its message, and that no baseline was written or changed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/files.hpp"
#include "probe/probe_fixture.hpp"
#include "results/result.hpp"
#include "runner/config.hpp"
#include "runner/listeners.hpp"
#include "runner/process.hpp"
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

// A fresh directory per test for its config, outputs and baselines.
struct Scratch {
  fs::path dir;
  Scratch() {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / ("gate-service-test-" + std::to_string(getpid()) + "-" + t->name());
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

std::string addr(uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

// A service config: servicetarget serves on `serve_at`, the load drives `load_at` (default the same).
std::string service_yaml(const std::string& serve_at, const std::string& functions, const std::string& serve_flags = "",
                         const std::string& load_flags = "-n 40", const std::string& load_at = "") {
  const std::string& st = servicetarget();
  return "name: svc\nbinary: " + st + "\nruns: 2\ntimeout: 60s\nservice:\n  command: " + st + " serve -addr " +
         serve_at + " " + serve_flags + "\n  ready_tcp: \"" + serve_at + "\"\n  ready_timeout: 20s\n  load: " + st +
         " load -addr " + (load_at.empty() ? serve_at : load_at) + " " + load_flags + "\nfunctions:\n" + functions;
}

// A listener that is not the service gate starts, alive for the test (killed with its group).
struct Foreign {
  runner::Child child;
  explicit Foreign(const std::string& at, bool reuseport)
      : child(runner::Child::spawn({servicetarget() + " foreign -addr " + at + (reuseport ? " -reuseport" : ""), "/tmp",
                                    {}, "", "", true},
                                   nullptr)) {
    EXPECT_TRUE(runner::wait_tcp_ready(at, 20, [this] { return child.running(); })) << "foreign listener on " << at;
  }
};

// A file's bytes and modification time, or that it does not exist: what "not changed" means.
struct FileState {
  bool exists = false;
  std::string bytes;
  timespec mtime{};
  explicit FileState(const std::string& path) {
    struct stat st {};
    exists = ::stat(path.c_str(), &st) == 0;
    if (!exists) return;
    mtime = st.st_mtim;
    bytes = read_file(path).value_or("");
  }
  bool operator==(const FileState& o) const {
    return exists == o.exists && bytes == o.bytes && mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// record into a baseline that exists (with --force) and one that does not: both must stay as they were.
void expect_record_refused(const std::string& cfg, const Scratch& s, const std::function<void(const CliOutcome&)>& check) {
  const std::string old = s.write("old-baseline.json", "{\"not\": \"touched\"}\n");
  const FileState before(old);
  const auto forced = run_gate({"record", "-q", "-c", cfg, "--baseline", old, "--force"});
  EXPECT_EQ(forced.code, 3) << forced.err;
  check(forced);
  EXPECT_TRUE(FileState(old) == before) << "the existing baseline changed";
  const std::string fresh = s.file("new-baseline.json");
  const auto created = run_gate({"record", "-q", "-c", cfg, "--baseline", fresh});
  EXPECT_EQ(created.code, 3) << created.err;
  EXPECT_FALSE(fs::exists(fresh)) << "a failed measurement became a baseline";
}

void expect_foreign_named(const std::string& err, pid_t pid, const std::string& at) {
  EXPECT_TRUE(has(err, "service.ready_tcp " + at)) << err;
  EXPECT_TRUE(has(err, "held by pid " + std::to_string(pid) + " (")) << "names the pid: " << err;
  EXPECT_TRUE(has(err, "foreign -addr " + at)) << "and its command line: " << err;
  EXPECT_TRUE(has(err, "fix: stop it")) << err;
  EXPECT_TRUE(has(err, "{port}")) << "offers the placeholder: " << err;
}

void foreign_before_start(bool reuseport) {
  Scratch s;
  const std::string at = addr(runner::free_tcp_port());
  Foreign foreign(at, reuseport);
  const std::string cfg = s.write("gate.yaml", service_yaml(at, "  - main.handle\n", reuseport ? "-reuseport" : ""));
  expect_record_refused(cfg, s, [&](const CliOutcome& r) {
    EXPECT_TRUE(has(r.err, "another process already listens there")) << r.err;
    expect_foreign_named(r.err, foreign.child.pid(), at);
  });
  const auto run = run_gate({"run", "-q", "-c", cfg});
  EXPECT_EQ(run.code, 3) << run.err;
  EXPECT_TRUE(has(run.err, "already listens there")) << run.err;
}

TEST(ServiceListener, ForeignListenerWithReuseportIsNamedAndNothingRecorded) {
  GATE_REQUIRE_ROOT();
  foreign_before_start(true);
}

TEST(ServiceListener, ForeignListenerWithoutReuseportIsNamedAndNothingRecorded) {
  GATE_REQUIRE_ROOT();
  foreign_before_start(false);
}

// The service's own command starts a listener that leaves its process tree (setsid, reparented):
// the readiness check passes on it, and the ownership check after it must catch it.
TEST(ServiceListener, ListenerOutsideTheServiceTreeIsCaughtOnceReady) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string at = addr(runner::free_tcp_port());
  const std::string& st = servicetarget();
  const std::string flag = s.file("foreign.out");
  const std::string cfg = s.write(
      "gate.yaml", "binary: " + st + "\nruns: 1\nservice:\n  command: \"(setsid " + st + " foreign -addr " + at +
                       " -reuseport -lifetime 30s > " + flag + " &); until grep -q listening " + flag +
                       "; do sleep 0.05; done; exec " + st + " serve -addr " + at + " -reuseport\"\n  ready_tcp: \"" +
                       at + "\"\n  load: " + st + " load -addr " + at + " -n 20\nfunctions: [main.handle]\n");
  const auto r = run_gate({"run", "-q", "-c", cfg, "--out", s.file("r.json")});
  // Whatever happens, the escaped listener goes: it is named in the message, or found by its port.
  std::smatch m;
  pid_t escaped = 0;
  if (std::regex_search(r.err, m, std::regex("held by pid ([0-9]+) \\(")) ) escaped = std::stoi(m[1]);
  for (const auto& l : runner::listeners_for(at))
    for (const pid_t p : l.pids)
      if (has(runner::describe_process(p), "foreign -addr")) ::kill(p, SIGKILL);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "accepts connections for processes outside the service gate started")) << r.err;
  EXPECT_TRUE(has(r.err, "foreign -addr " + at)) << r.err;
  EXPECT_GT(escaped, 0) << r.err;
  EXPECT_TRUE(load_result_file(s.file("r.json")).partial);
}

// {port}: gate picks a free port per run, so a taken fixed port is no longer in the way; the
// measurement is exact (one handle call per request, in each of the unit's default rounds; the
// warm-up round is not measured).
TEST(ServiceListener, PortPlaceholderAvoidsATakenPort) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  Foreign taken(addr(runner::free_tcp_port()), true);
  const std::string cfg = s.write("gate.yaml", service_yaml("127.0.0.1:{port}", "  - main.handle\n"));
  const auto r = run_gate({"run", "-q", "-c", cfg, "--out", s.file("r.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto res = load_result_file(s.file("r.json"));
  ASSERT_EQ(res.runs.size(), 2u);
  for (const auto& run : res.runs)
    EXPECT_EQ(run.find("main.handle")->calls, 40u * static_cast<unsigned>(runner::kDefaultServiceRounds));
}

TEST(ServiceProcesses, ServiceDyingUnderLoadNamesItWithItsStderr) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string at = addr(runner::free_tcp_port());
  const std::string cfg = s.write("gate.yaml", service_yaml(at, "  - main.handle\n", "-die-after 15", "-n 200"));
  expect_record_refused(cfg, s, [&](const CliOutcome& r) {
    EXPECT_TRUE(has(r.err, "service '" + servicetarget() + " serve")) << "which process: " << r.err;
    EXPECT_TRUE(has(r.err, "(pid ")) << r.err;
    EXPECT_TRUE(has(r.err, "exited (status 9) during the load")) << r.err;
    EXPECT_TRUE(has(r.err, "the load then exited with status 4")) << r.err;
    EXPECT_TRUE(has(r.err, "simulated crash after 15 requests")) << "the service's stderr: " << r.err;
  });
}

TEST(ServiceProcesses, FailingLoadDriverNamesItWithItsStderr) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string at = addr(runner::free_tcp_port());
  const std::string cfg = s.write("gate.yaml", service_yaml(at, "  - main.handle\n", "", "-fail"));
  expect_record_refused(cfg, s, [&](const CliOutcome& r) {
    EXPECT_TRUE(has(r.err, "load '" + servicetarget() + " load")) << "which process: " << r.err;
    EXPECT_TRUE(has(r.err, "exited with status 4")) << r.err;
    EXPECT_TRUE(has(r.err, "simulated load failure")) << "the load's stderr: " << r.err;
  });
}

TEST(ServiceProcesses, ServiceExitingBeforeReadyNamesItWithItsStderr) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string at = addr(runner::free_tcp_port());
  const std::string& st = servicetarget();
  const std::string cfg = s.write("gate.yaml", "binary: " + st + "\nservice:\n  command: " + st +
                                                   " serve -addr 127.0.0.1:notaport\n  ready_tcp: \"" + at +
                                                   "\"\n  load: " + st + " load -addr " + at +
                                                   "\nfunctions: [main.handle]\n");
  expect_record_refused(cfg, s, [&](const CliOutcome& r) {
    EXPECT_TRUE(has(r.err, "service '" + st + " serve")) << r.err;
    EXPECT_TRUE(has(r.err, "exited with status 2 before accepting connections")) << r.err;
    EXPECT_TRUE(has(r.err, "listen 127.0.0.1:notaport")) << "the service's stderr: " << r.err;
  });
}

void expect_nothing_measured(const CliOutcome& r, bool service) {
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "timed no call of any of the 2 declared functions")) << r.err;
  EXPECT_TRUE(has(r.err, "the workload never reached them")) << r.err;
  EXPECT_EQ(has(r.err, "the service under load was not the process gate started"), service) << r.err;
  EXPECT_TRUE(has(r.err, "inlined everywhere")) << r.err;
  EXPECT_TRUE(has(r.err, "fix: ")) << r.err;
}

// A workload that calls none of the declared functions: exit 3 in run, record, check and ab.
TEST(NothingMeasured, WorkloadReachingNoDeclaredFunctionFailsEveryCommand) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string& st = servicetarget();
  const std::string fns = "functions: [main.handle, main.neverCalled]\n";
  const std::string idle = s.write("idle.yaml", "name: idle\nbinary: " + st + "\nworkload: " + st + " idle\nruns: 2\n" + fns);
  expect_nothing_measured(run_gate({"run", "-q", "-c", idle}), false);
  expect_record_refused(idle, s, [](const CliOutcome& r) { expect_nothing_measured(r, false); });

  // check needs a baseline: one recorded from the service, neverCalled marked optional.
  const std::string at = addr(runner::free_tcp_port());
  const std::string good = s.write(
      "good.yaml", service_yaml(at, "  - main.handle\n  - {name: main.neverCalled, optional: true}\n"));
  const std::string baseline = s.file("baseline.json");
  const auto rec = run_gate({"record", "-q", "-c", good, "--baseline", baseline});
  ASSERT_EQ(rec.code, 0) << rec.err;
  const FileState before(baseline);
  expect_nothing_measured(run_gate({"check", "-q", "-c", idle, "--baseline", baseline}), false);
  EXPECT_TRUE(FileState(baseline) == before);
  expect_nothing_measured(run_gate({"ab", "-q", "-c", idle, "--base-binary", st, "--head-binary", st}), false);
}

// A load aimed at another port than the service's: the service saw nothing, and says so.
TEST(NothingMeasured, LoadAimedElsewhereIsAFailedRun) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string other = addr(runner::free_tcp_port());
  Foreign elsewhere(other, false);
  const std::string cfg = s.write("gate.yaml", service_yaml(addr(runner::free_tcp_port()),
                                                            "  - main.handle\n  - main.neverCalled\n", "", "-n 20", other));
  expect_record_refused(cfg, s, [](const CliOutcome& r) { expect_nothing_measured(r, true); });
}

// One declared function never called: a warning in run (with its inlining status), a refused
// baseline unless optional, and a warning in the reports.
TEST(NothingMeasured, OneFunctionNeverCalledIsAWarningAndNoBaselineUnlessOptional) {
  GATE_REQUIRE_ROOT();
  Scratch s;
  const std::string at = addr(runner::free_tcp_port());
  const std::string cfg = s.write("gate.yaml", service_yaml(at, "  - main.handle\n  - main.neverCalled\n"));
  const std::string warning = "warning: main.neverCalled: no calls in any of the 2 runs; no inlined copies found";
  const auto run = run_gate({"run", "-q", "-c", cfg});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(has(run.err, warning)) << "printed even with -q: " << run.err;
  EXPECT_TRUE(has(run.out, "main.neverCalled")) << run.out;
  expect_record_refused(cfg, s, [](const CliOutcome& r) {
    EXPECT_TRUE(has(r.err, "not written: 1 declared function had no calls in 2 runs")) << r.err;
    EXPECT_TRUE(has(r.err, "- main.neverCalled (no inlined copies found)")) << r.err;
    EXPECT_TRUE(has(r.err, "{name: main.neverCalled, optional: true}")) << "names the key: " << r.err;
  });

  const std::string opt = s.write("opt.yaml", service_yaml(at, "  - main.handle\n  - {name: main.neverCalled, optional: true}\n"));
  const std::string baseline = s.file("baseline.json");
  const auto rec = run_gate({"record", "-q", "-c", opt, "--baseline", baseline});
  ASSERT_EQ(rec.code, 0) << rec.err;
  EXPECT_TRUE(has(rec.err, warning)) << rec.err;
  EXPECT_EQ(load_result_file(baseline).runs.size(), 2u);

  // Reports: the text report of check, the JSON report of compare.
  const auto check = run_gate({"check", "-c", opt, "--baseline", baseline});
  EXPECT_TRUE(check.code == 0 || check.code == 1) << check.err;
  EXPECT_TRUE(has(check.out, "main.neverCalled: no calls in any of the 2 runs of head; no inlined copies found"))
      << check.out;
  EXPECT_TRUE(has(check.out, "main.neverCalled: no calls in any of the 2 runs of base")) << check.out;
  const auto cmp = run_gate({"compare", baseline, baseline, "--format", "json"});
  EXPECT_EQ(cmp.code, 0) << cmp.err;
  const auto j = nlohmann::json::parse(cmp.out);
  bool found = false;
  for (const auto& w : j.at("warnings")) found = found || has(w.get<std::string>(), "main.neverCalled: no calls");
  EXPECT_TRUE(found) << cmp.out;
}

}  // namespace
}  // namespace gate::testing
