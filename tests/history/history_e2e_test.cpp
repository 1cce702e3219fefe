// The history end to end, as root with real probes: 16 `gate run` results of the shop in commit
// order (c01-c08 the base, c09-c16 with pricing.Apply's own work 2x slower, one upload repeated) in a SQLite
// history, whose change points must name c09; and `gate bisect` over a git repository of 8 commits
// (the 5th makes pricing.Apply 3x slower), which must name the 5th.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "support/gate_cli.hpp"
#include "support/go_build.hpp"
#include "history/synthetic.hpp"

using namespace gate::testing;
namespace fs = std::filesystem;

namespace {

#define REQUIRE_ROOT() \
  if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: NOT ROOT: the history's end-to-end tests need BPF (CI runs them as root)"

const std::string kApply = "example.com/shop/pricing.Apply";

const char* kShopFunctions =
    "  - example.com/shop/pricing.Apply\n"
    "  - example.com/shop.(*Store).Get\n"
    "  - example.com/shop.(*Cart).Add\n"
    "  - example.com/shop.Order.Invoice\n"
    "  - example.com/shop.ValidateOrder\n"
    "  - example.com/shop.(*Category).Walk\n"
    "  - example.com/shop.SumBy[...]\n";

std::string temp_dir(const std::string& what) {
  const fs::path d = fs::temp_directory_path() / ("gate-" + what + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::string commit_name(int i) { return std::string("c") + (i < 10 ? "0" : "") + std::to_string(i); }

}  // namespace

TEST(HistoryE2E, ShopOverSixteenCommitsNamesC09) {
  REQUIRE_ROOT();
  const std::string shop = build_shop_example();
  const std::string dir = temp_dir("history-e2e");
  const std::string cfg = dir + "/gate.yaml";
  std::ofstream(cfg) << "name: shop-history\n"
                     << "binary: " << shop << "\n"
                     << "workload: " << shop << " -orders 1000 -workers 1 -q\n"
                     << "runs: 5\n"
                     << "env: {GOMAXPROCS: \"1\"}\n"
                     // 8 functions: enough for the history's speed normalization (>= 5)
                     << "functions:\n"
                     << kShopFunctions;
  // Kept in the build tree: the acceptance's trend page is looked at from there.
  const std::string keep = std::string(GATE_BINARY_DIR) + "/history-e2e";
  fs::create_directories(keep);
  const std::string db_path = keep + "/history.db";
  fs::remove(db_path);
  fs::remove(db_path + "-wal");
  fs::remove(db_path + "-shm");
  const std::string db = "sqlite:" + db_path;
  for (int i = 1; i <= 16; ++i) {
    const std::string out = dir + "/" + commit_name(i) + ".json";
    std::map<std::string, std::string> env;
    if (i >= 9) env["SHOP_SLOW"] = kApply + "=2";  // the head's change, from c09 on
    // Raw values, not --true-time: subtracting the probes' calibrated cost, which is re-measured in
    // every `gate run`, adds an error that is the same in nanoseconds for every function, so it is
    // not the common-mode factor the history's speed normalization takes out. A clean-clone CI run
    // saw it: from c08 the calibration moved by ~180 ns, (*Cart).Add's compensated p50 fell from
    // 185 ns to 0.9 ns, (*Store).Get's to 0.64x, and Apply's normalized p50 rose 1.41x one commit
    // early. Raw, the probes' cost (~1 us of Apply's ~1.4 us) dilutes the step: Apply's own work
    // made 2x slower reads ~1.3x, clear of the machine's common-mode swings once normalized.
    const auto run = run_gate({"run", "-q", "-c", cfg, "--out", out}, {.env = env});
    ASSERT_EQ(run.code, 0) << commit_name(i) << ": " << run.err;
    const auto add = run_gate({"history", "add", out, "--commit", commit_name(i), "--parent",
                               i > 1 ? commit_name(i - 1) : "", "--branch", "main", "--time",
                               std::to_string(1795700000 + 60 * i), "--db", db, "-q"});
    ASSERT_EQ(add.code, 0) << add.err;
    if (i == 5) {  // a retried upload adds nothing
      const auto again = run_gate({"history", "add", out, "--commit", commit_name(i), "--time",
                                   std::to_string(1795700000 + 60 * i), "--db", db});
      ASSERT_EQ(again.code, 0) << again.err;
      EXPECT_NE(again.err.find("nothing added"), std::string::npos) << again.err;
    }
  }
  const auto show = run_gate({"history", "show", kApply, "--quantile", "p50", "--db", db});
  std::printf("%s\n", show.out.c_str());
  const auto text = run_gate({"history", "changes", "--db", db});
  std::printf("%s\n", text.out.c_str());
  const auto changes = run_gate({"history", "changes", "--db", db, "--format", "json"});
  ASSERT_EQ(changes.code, 0) << changes.err;
  const auto j = nlohmann::json::parse(changes.out);
  std::vector<std::string> apply_p50;
  for (const auto& c : j["changes"])
    if (c["function"] == kApply && c["quantile"] == "p50") {
      apply_p50.push_back(c["commit"]);
      if (c["commit"] == "c09") {
        // Apply's 2x body is diluted by the probes' fixed cost: ~1.3x (see above).
        EXPECT_GT(c["shift"].get<double>(), 1.1) << c.dump();
        EXPECT_LE(c["p_value"].get<double>(), 0.05) << c.dump();
        EXPECT_FALSE(c["provisional"].get<bool>());
      }
    }
  // c09 is the first (none in the base's eight commits). A later one can follow when the machine's
  // load moves during the 16 results (seen once: a provisional 1.06x at c13 while two builds ran).
  ASSERT_FALSE(apply_p50.empty()) << changes.out;
  EXPECT_EQ(apply_p50.front(), "c09") << changes.out;
  const auto trend = run_gate({"history", "trend", "--db", db, "--out", keep + "/trend.html", "--json",
                               keep + "/trend.json"});
  ASSERT_EQ(trend.code, 0) << trend.err;
  const auto tj = nlohmann::json::parse(std::ifstream(keep + "/trend.json"));
  EXPECT_EQ(tj["series"][0]["points"].size(), 16u);
  fs::remove_all(dir);
}

// A git repository of the shop with n commits, the slow_at-th making pricing.Apply 3x slower; the
// commits' SHAs, oldest first. Each step decides on pricing.Apply alone: 6-14 runs, a 3x slowdown
// (1.69x through the probes) against a 20% band, speed-normalized over 8 functions, so that both
// "regression" and "unchanged" are reached on a noisy 2-vCPU machine (one function without
// normalization and a 10% band left an unchanged commit inconclusive after 14 runs).
std::vector<std::string> make_repo(const std::string& repo, int n, int slow_at) {
  const std::string go = default_go().go;
  const auto git = [&](const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"git", "-c", "user.name=gate test", "-c", "user.email=test@gate.invalid"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto o = run_program(argv, repo);
    if (o.code != 0) throw std::runtime_error("git failed: " + o.err);
    return o.out;
  };
  git({"init", "-q", "-b", "main"});
  fs::copy(std::string(GATE_SOURCE_DIR) + "/examples/shop", repo, fs::copy_options::recursive);
  fs::remove_all(repo + "/bin");
  std::ofstream(repo + "/gate.yaml") << "name: bisect-test\n"
                                     << "build: GOTOOLCHAIN=local GOFLAGS=-mod=mod " << go << " build -o bin/shop ./cmd/shop\n"
                                     << "binary: bin/shop\n"
                                     << "workload: $GATE_BINARY -orders 400 -workers 1 -q\n"
                                     << "runs: 6\n"
                                     << "max_runs: 14\n"
                                     << "env: {GOMAXPROCS: \"1\"}\n"
                                     // 8 functions: gate ab takes the machine's speed out (>= 5)
                                     << "functions:\n" << kShopFunctions
                                     << "quantiles: [p50]\n"
                                     << "threshold: 20%\n";
  std::ofstream(repo + "/.gitignore") << "bin/\n";
  std::vector<std::string> shas;
  for (int i = 1; i <= n; ++i) {
    std::ofstream(repo + "/CHANGES", std::ios::app) << "change " << i << "\n";
    if (i == slow_at)
      std::ofstream(repo + "/cmd/shop/zz_slow.go") << "package main\n\nimport \"os\"\n\n"
                                                   << "// This commit's change: pricing.Apply got 3x slower.\n"
                                                   << "func init() { os.Setenv(\"SHOP_SLOW\", \"" << kApply
                                                   << "=3\") }\n";
    git({"add", "-A"});
    git({"commit", "-q", "-m", "c" + std::to_string(i) + (i == slow_at ? ": slower pricing" : ": a change")});
    shas.push_back(git({"rev-parse", "HEAD"}).substr(0, 40));
  }
  return shas;
}

const std::map<std::string, std::string> kGoCache = {{"GOCACHE", std::string(GATE_BINARY_DIR) + "/gocache-bisect"}};

TEST(HistoryE2E, BisectNamesTheSlowedCommitOfEight) {
  REQUIRE_ROOT();
  const std::string repo = temp_dir("bisect-repo");
  const auto shas = make_repo(repo, 8, 5);
  const auto o = run_gate({"bisect", shas[0], shas[7], "-c", repo + "/gate.yaml", "--function", kApply}, {.env = kGoCache});
  std::printf("%s\n%s\n", o.out.c_str(), o.err.c_str());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("first bad commit: " + shas[4]), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(3 steps for 7 commits)"), std::string::npos) << o.out;  // ceil(log2 7)
  fs::remove_all(repo);
}

// From a change point: the history measured commits 1-4 and 7-12 (synthetic results under the
// repository's real SHAs, Apply's p50 1.5x from commit 7), so its change point names commit 7 and
// commits 5 and 6 were never measured; bisect starts there and names commit 6 in 2 steps.
TEST(HistoryE2E, BisectStartsFromAChangePoint) {
  REQUIRE_ROOT();
  const std::string repo = temp_dir("bisect-from-change");
  const auto shas = make_repo(repo, 12, 6);
  const std::string db = "sqlite:" + repo + "/../bisect-history-" + std::to_string(getpid()) + ".db";
  for (int i = 1; i <= 12; ++i) {
    if (i == 5 || i == 6) continue;
    SyntheticRun r;
    r.p50_ns = {{kApply, i >= 7 ? 2.25e3 : 1.5e3}};
    r.seed = i;
    const std::string file = repo + "/../synthetic-" + std::to_string(getpid()) + "-" + std::to_string(i) + ".json";
    gate::save_result_file(file, synthetic_result(r));
    ASSERT_EQ(run_gate({"history", "add", file, "--commit", shas[i - 1], "--time", std::to_string(1795700000 + 60 * i),
                        "--db", db, "-q"})
                  .code,
              0);
    fs::remove(file);
  }
  const auto o = run_gate({"bisect", "--from-change", kApply, "--db", db, "-c", repo + "/gate.yaml"}, {.env = kGoCache});
  std::printf("%s\n%s\n", o.out.c_str(), o.err.c_str());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("after " + shas[3].substr(0, 12) + " up to " + shas[6].substr(0, 12)), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("first bad commit: " + shas[5]), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(2 steps for 3 commits)"), std::string::npos) << o.out;
  fs::remove(db.substr(7));
  fs::remove_all(repo);
}
