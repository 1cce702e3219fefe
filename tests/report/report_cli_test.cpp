// The report flags of the gate CLI, end to end without root: `gate compare` on synthetic result
// files with --format/--output/--report-dir (and their usage errors), colour on a terminal only
// (NO_COLOR respected), and --baseline-ref against a temporary git repository.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report_fixture.hpp"
#include "support/gate_cli.hpp"
#include "results/result.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

const std::string kGate = GATE_BINARY_DIR "/gate/cli/gate";

using Outcome = CliOutcome;


// A directory for this test process, removed when it exits.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("gate-report-cli-" + std::to_string(getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};
fs::path scratch() {
  static const Scratch s;
  return s.dir;
}

using Env = std::map<std::string, std::string>;

Outcome gate(const std::vector<std::string>& args, const fs::path& dir = scratch(), const Env& env = {}) {
  return run_gate(args, {.env = env, .cwd = dir.string()});
}

// The sample's base and head as result files, written once.
struct Files {
  std::string base, head;
};
const Files& files() {
  static const Files f = [] {
    ReportSample s;
    make_report_sample(s);
    Files r{(scratch() / "base.json").string(), (scratch() / "head.json").string()};
    save_result_file(r.base, s.base);
    save_result_file(r.head, s.head);
    return r;
  }();
  return f;
}

TEST(ReportCli, DefaultIsTheTextReportOnStdout) {
  const auto r = gate({"compare", files().base, files().head});
  EXPECT_EQ(r.code, 1) << r.err;
  // The table first, after the suspected regressions (the sample has one, named above the table).
  EXPECT_EQ(r.out.rfind("SUSPECT 1 suspected regression", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n\nverdict "), std::string::npos) << r.out;
  EXPECT_TRUE(contains(r.out, "    reproduce: gate compare " + files().base + " " + files().head + "\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "    accept:    cp " + files().head + " " + files().base + "\n")) << r.out;
  EXPECT_FALSE(contains(r.out, "\x1b[")) << "no colour when stdout is a file";
}

TEST(ReportCli, OneFormatWithoutOutputGoesToStdoutAlone) {
  const auto r = gate({"compare", files().base, files().head, "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema"), "gate.report");
  EXPECT_EQ(j.at("command"), "compare");
  EXPECT_EQ(j.at("exit_code"), 1);
  EXPECT_FALSE(j.at("options").is_null());
}

TEST(ReportCli, OutputsPairWithFormatsAndTextStaysOnStdout) {
  const fs::path d = scratch() / "pairs";
  const auto r = gate({"compare", files().base, files().head, "--format", "junit,html", "--output",
                       (d / "j.xml").string(), "--output", (d / "r.html").string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(slurp(d / "j.xml"), "<testsuites")) << "junit";
  EXPECT_TRUE(contains(slurp(d / "r.html"), "<svg class=\"plot\"")) << "html with plots";
  EXPECT_TRUE(contains(r.out, "gate: 2 regressions")) << "a function and a benchmark metric: " << r.out;
  EXPECT_TRUE(contains(r.err, "wrote the junit report to")) << r.err;
}

TEST(ReportCli, ReportDirWritesEveryFormat) {
  const fs::path d = scratch() / "all";
  const auto r = gate({"compare", files().base, files().head, "--report-dir", d.string(), "-q"});
  EXPECT_EQ(r.code, 1) << r.err;
  for (const char* f : {"report.txt", "report.md", "report.json", "junit.xml", "report.html"})
    EXPECT_TRUE(fs::exists(d / f)) << f;
  EXPECT_TRUE(contains(r.out, "gate: 2 regressions")) << "a function and a benchmark metric: " << r.out;
  EXPECT_TRUE(r.err.empty()) << "-q: " << r.err;
  // Only the asked formats when --format names some.
  const fs::path d2 = scratch() / "some";
  EXPECT_EQ(gate({"compare", files().base, files().head, "--report-dir", d2.string(), "--format", "md"}).code, 1);
  EXPECT_TRUE(fs::exists(d2 / "report.md"));
  EXPECT_FALSE(fs::exists(d2 / "report.html"));
}

TEST(ReportCli, UsageErrorsExit2) {
  auto r = gate({"compare", files().base, files().head, "--format", "markdown", "--format", "json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "--report-dir")) << "suggests the fix: " << r.err;
  r = gate({"compare", files().base, files().head, "--output", "x.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "one --output per --format")) << r.err;
  r = gate({"compare", files().base, files().head, "--format", "pdf"});
  EXPECT_EQ(r.code, 2) << r.err;
  r = gate({"compare", files().base, files().head, "--format", "json,html", "--output", "-", "--output", "-"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "only one report can go to stdout")) << r.err;
}

// Runs gate on a pseudo-terminal: what a developer sees.
std::string on_terminal(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm", 1);
    for (const auto& kv : env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> argv{const_cast<char*>(kGate.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(kGate.c_str(), argv.data());
    _exit(127);
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(master);
  int st = 0;
  waitpid(pid, &st, 0);
  return out;
}

TEST(ReportCli, ColourOnATerminalUnlessNoColor) {
  const std::string tty = on_terminal({"compare", files().base, files().head}, {});
  EXPECT_TRUE(contains(tty, "\x1b[1;31mregression\x1b[0m")) << tty;
  const std::string no = on_terminal({"compare", files().base, files().head}, {"NO_COLOR=1"});
  EXPECT_TRUE(contains(no, "regression")) << no;
  EXPECT_FALSE(contains(no, "\x1b[")) << no;
}

// A temporary git repository: baselines/b.json and gate.yaml committed on main.
struct Repo {
  fs::path dir;
  Outcome git(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"git", "-c", "user.name=gate test", "-c", "user.email=gate@example.com"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, dir.string(), {{"GIT_CONFIG_NOSYSTEM", "1"}, {"HOME", dir.string()}});
  }
};

const char* kConfig =
    "name: shop\nbinary: bin/shop\nworkload: bin/shop\nfunctions: [example.com/shop.*]\nthreshold: 3%\n";

Repo make_repo(const std::string& name) {
  Repo r{scratch() / name};
  fs::remove_all(r.dir);
  fs::create_directories(r.dir / "baselines");
  fs::copy_file(files().base, r.dir / "baselines/b.json");
  std::ofstream(r.dir / "gate.yaml") << kConfig;
  EXPECT_EQ(r.git({"init", "-q", "-b", "main"}).code, 0);
  EXPECT_EQ(r.git({"add", "."}).code, 0);
  const auto c = r.git({"commit", "-q", "-m", "baseline"});
  EXPECT_EQ(c.code, 0) << c.err;
  return r;
}

TEST(BaselineRef, ABranchCannotLoosenItsGateByEditingTheBaseline) {
  Repo repo = make_repo("loosen");
  // The branch replaces the baseline with its own (slower) result: compared with itself, it passes...
  fs::copy_file(files().head, repo.dir / "baselines/b.json", fs::copy_options::overwrite_existing);
  const auto loose = gate({"compare", "baselines/b.json", files().head}, repo.dir);
  EXPECT_EQ(loose.code, 0) << loose.out << loose.err;
  // ... but with --baseline-ref the baseline comes from main, and the headline says what happened.
  const auto r = gate({"compare", "baselines/b.json", files().head, "--baseline-ref", "main"}, repo.dir);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("NOTE: this branch changes the baseline baselines/b.json", 0), 0u) << r.out;
  const auto md = gate({"compare", "baselines/b.json", files().head, "--baseline-ref", "main", "--format", "markdown"},
                       repo.dir);
  EXPECT_TRUE(contains(md.out, "> **Note:** this branch changes the baseline baselines/b.json")) << md.out;
  // Unchanged baseline: no notice.
  fs::copy_file(files().base, repo.dir / "baselines/b.json", fs::copy_options::overwrite_existing);
  const auto same = gate({"compare", "baselines/b.json", files().head, "--baseline-ref", "main"}, repo.dir);
  EXPECT_EQ(same.code, 1);
  EXPECT_FALSE(contains(same.out, "NOTE:")) << same.out;
}

TEST(BaselineRef, ThresholdChangesAreInTheHeadline) {
  Repo repo = make_repo("thresholds");
  std::string cfg = kConfig;
  cfg.replace(cfg.find("threshold: 3%"), 13, "threshold: 50%");
  std::ofstream(repo.dir / "gate.yaml") << cfg;
  const auto r = gate({"compare", "baselines/b.json", files().head, "-c", "gate.yaml", "--baseline-ref", "main",
                       "--format", "json"},
                      repo.dir);
  ASSERT_NE(r.out, "") << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("notices").size(), 1u) << r.out;
  const std::string n = j.at("notices")[0];
  EXPECT_TRUE(contains(n, "this branch changes the thresholds in gate.yaml (compared with main)")) << n;
  EXPECT_TRUE(contains(n, "threshold +3% / -3% -> +50% / -50%")) << n;
}

TEST(BaselineRef, ClearErrors) {
  Repo repo = make_repo("errors");
  auto r = gate({"compare", "baselines/b.json", files().head, "--baseline-ref", "no-such-branch"}, repo.dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "--baseline-ref no-such-branch: does not name a commit")) << r.err;
  EXPECT_TRUE(contains(r.err, "fix: fetch it first")) << r.err;

  fs::copy_file(files().base, repo.dir / "baselines/untracked.json");
  r = gate({"compare", "baselines/untracked.json", files().head, "--baseline-ref", "main"}, repo.dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "baseline baselines/untracked.json: is not in main")) << r.err;

  const fs::path outside = fs::temp_directory_path() / ("gate-report-nogit-" + std::to_string(getpid()));
  fs::create_directories(outside);
  fs::copy_file(files().base, outside / "b.json", fs::copy_options::overwrite_existing);
  r = gate({"compare", "b.json", files().head, "--baseline-ref", "main"}, outside, {{"GIT_CEILING_DIRECTORIES", "/"}});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "is not in a git repository")) << r.err;
  fs::remove_all(outside);

  r = gate({"compare", "baselines/b.json", files().head, "--baseline-ref", "--upload-pack=x"}, repo.dir);
  EXPECT_EQ(r.code, 2) << r.err;
}

}  // namespace
}  // namespace gate::testing
