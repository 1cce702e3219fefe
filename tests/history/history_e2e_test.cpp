// The history end to end, as root with real probes: N `gate run` results of the shop in commit
// order (the first half the base, the second half with pricing.Apply slowed to read >= 2.5x, one
// upload repeated) in a SQLite history, whose change points must name the first slowed commit; and
// `gate bisect` over a git repository of 8 commits (the 5th makes pricing.Apply slower, by a factor
// sized from Apply's measured own and probed time so that it reads >= 2x through the probes), which
// must name the 5th.
// ctest (history_e2e) runs 12 commits (c07 named: 6 points a side, the change points' least for a
// confirmed change) and bisect from a change point; the acceptance's 16 commits (c09 named) and the
// bisect over 8 commits run in tests/bench/history_lab.sh (GATE_HISTORY_COMMITS=16), whose figures
// docs/development.md ("Suite time") records: they took 322 of the suite's seconds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "support/gate_cli.hpp"
#include "support/go_build.hpp"
#include "support/noise.hpp"
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

// How many commits the history test measures: GATE_HISTORY_COMMITS (even, >= 12), default 12.
int history_commits() {
  const char* e = std::getenv("GATE_HISTORY_COMMITS");
  const int n = e && *e ? std::atoi(e) : 12;
  if (n < 12 || n % 2) throw std::runtime_error("GATE_HISTORY_COMMITS must be even and >= 12, not '" +
                                                std::string(e ? e : "") + "'");
  return n;
}

// Each commit's `gate run`: GATE_HISTORY_ORDERS orders (default 400) and GATE_HISTORY_RUNS runs
// (default 4). ctest's history_e2e takes the defaults (issue 40: 12 x 5 runs of 1,000 orders were
// ~150 of its seconds; the step is sized from the noise measured with the same workload, so a
// shorter one only sizes it larger); tests/bench/history_lab.sh, the acceptance, 1,000 and 5.
int env_int(const char* name, int fallback, int least) {
  const char* e = std::getenv(name);
  const int n = e && *e ? std::atoi(e) : fallback;
  if (n < least) throw std::runtime_error(std::string(name) + " must be >= " + std::to_string(least));
  return n;
}
int history_orders() { return env_int("GATE_HISTORY_ORDERS", 400, 100); }
int history_runs() { return env_int("GATE_HISTORY_RUNS", 4, 3); }

std::string commit_name(int i) { return std::string("c") + (i < 10 ? "0" : "") + std::to_string(i); }

std::vector<std::string> shop_function_list() {
  std::vector<std::string> out;
  std::istringstream in(kShopFunctions);
  for (std::string l; std::getline(in, l);)
    if (l.size() > 4) out.push_back(l.substr(4));
  return out;
}

}  // namespace

TEST(HistoryE2E, ShopOverCommitsNamesTheFirstSlowedOne) {
  REQUIRE_ROOT();
  const int n = history_commits(), first_slow = n / 2 + 1;
  const std::string slowed = commit_name(first_slow);
  const std::string shop = build_shop_example();
  const std::string dir = temp_dir("history-e2e");
  const std::string cfg = dir + "/gate.yaml";
  const std::string args = "-orders " + std::to_string(history_orders()) + " -workers 1 -q";
  std::ofstream(cfg) << "name: shop-history\n"
                     << "binary: " << shop << "\n"
                     << "workload: " << shop << " " << args << "\n"
                     << "runs: " << history_runs() << "\n"
                     << "env: {GOMAXPROCS: \"1\"}\n"
                     << "measure: probes\n"  // the step is sized from Apply's probed p50 noise
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
  // The step from the first slowed commit on (c09 of 16): Apply's knob sized from its own and probed
  // time measured here, to read at least 2.5x through the probes, more when the measured run-to-run
  // noise is larger (1 + 4 cv).
  // A fixed 2x read ~1.3x on one host and would read less where a uprobe hit costs more. A step
  // sized to 1.5x from a measured cv of 11% failed a clean-clone CI run: c11-c13 read 0.87-1.0x of
  // the base after speed normalization (the other functions are mostly probe, so a surge in the
  // probes' cost reads as a faster Apply), and the first change point fell on c14.
  const FunctionCost cost = measure_shop_function(
      {.binary = shop, .args = args, .env = {{"GOMAXPROCS", "1"}},
       .functions = shop_function_list(), .runs = 5},
      kApply);
  const double ratio = std::max(2.5, 1 + 4 * cost.cv());
  const double factor = shop_factor_for(cost, ratio);
  ASSERT_GT(factor, 0) << "the knob cannot make Apply read " << ratio << "x: " << cost.figures();
  std::printf("%s-%s: SHOP_SLOW %s=%.2f (sized to read %.2fx)\n", slowed.c_str(), commit_name(n).c_str(),
              kApply.c_str(), factor, ratio);
  for (int i = 1; i <= n; ++i) {
    const std::string out = dir + "/" + commit_name(i) + ".json";
    std::map<std::string, std::string> env;
    if (i >= first_slow) env["SHOP_SLOW"] = kApply + "=" + std::to_string(factor);  // the head's change
    // Raw values, not --true-time: subtracting the probes' calibrated cost, which is re-measured in
    // every `gate run`, adds an error that is the same in nanoseconds for every function, so it is
    // not the common-mode factor the history's speed normalization takes out. A clean-clone CI run
    // saw it: from c08 the calibration moved by ~180 ns, (*Cart).Add's compensated p50 fell from
    // 185 ns to 0.9 ns, (*Store).Get's to 0.64x, and Apply's normalized p50 rose 1.41x one commit
    // early. Raw, the probes' cost dilutes the step: the factor above is sized from it.
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
      if (c["commit"] == slowed) {
        // Sized to read >= 2.5x; at least 1.3x must remain after normalization.
        EXPECT_GT(c["shift"].get<double>(), 1.3) << c.dump();
        EXPECT_LE(c["p_value"].get<double>(), 0.05) << c.dump();
        EXPECT_FALSE(c["provisional"].get<bool>());
      }
    }
  // The first slowed commit is the first (none in the base's commits). A later one can follow when the machine's
  // load moves during the 16 results (seen once: a provisional 1.06x at c13 while two builds ran).
  ASSERT_FALSE(apply_p50.empty()) << changes.out;
  EXPECT_EQ(apply_p50.front(), slowed) << changes.out;
  const auto trend = run_gate({"history", "trend", "--db", db, "--out", keep + "/trend.html", "--json",
                               keep + "/trend.json"});
  ASSERT_EQ(trend.code, 0) << trend.err;
  const auto tj = nlohmann::json::parse(std::ifstream(keep + "/trend.json"));
  EXPECT_EQ(tj["series"][0]["points"].size(), static_cast<size_t>(n));
  fs::remove_all(dir);
}

// The slowdown and band of a bisect step, sized from what this machine measures: Apply's own time
// (SHOP_TIMING) and its p50 through the probes with the bisect's workload and traced set, and that
// p50's run-to-run noise. The band must hold an unchanged commit's interval at max_runs (at least
// 20%, else 1.25x the interval's half-width measured from the raw noise), and the slowed commit must
// read wholly above it (the band times a second half-width, and at least 2x). The knob stretches
// Apply's body (~1-2 us) while the probes add ~6-22 us a call on this machine kind: a fixed factor
// (3x read 1.69x on a quiet host, 1.2x [1.178, 1.255] on a fresh one against the 20% band) is not a
// size, the factor is computed from the measured probed time.
struct BisectSizing {
  FunctionCost cost;
  double threshold = 0.2, ratio = 2, factor = 0;
  std::string figures() const {
    char b[256];
    std::snprintf(b, sizeof b, "; band %.0f%%, slowed commit sized to read %.2fx (SHOP_SLOW factor %.1f)",
                  100 * threshold, ratio, factor);
    return cost.figures() + b;
  }
};
constexpr int kBisectRuns = 6, kBisectMaxRuns = 14;
const char* kBisectArgs = "-orders 400 -workers 1 -q";

BisectSizing size_bisect() {
  BisectSizing s;
  s.cost = measure_shop_function({.binary = build_shop_example(), .args = kBisectArgs, .env = {{"GOMAXPROCS", "1"}},
                                  .functions = shop_function_list(), .runs = kBisectRuns},
                                 kApply);
  const double hw = interval_half_width(s.cost.cv(), kBisectMaxRuns);
  s.threshold = std::min(0.5, std::max(0.2, 1.25 * hw));
  s.ratio = std::max(2.0, (1 + s.threshold) * (1 + 2 * hw));
  // The probes only add time: an own p50 above the probed one (6.25 against 3.49 us, seen once; the
  // two are measured apart, each with its noise) sized a factor of 1.6 that read 1.36x, not 2x, and
  // the slowed step stayed undecided. Sized from the smaller of the two, the step is never short.
  FunctionCost sizing = s.cost;
  sizing.body_ns = std::min(sizing.body_ns, sizing.probed_ns());
  s.factor = shop_factor_for(sizing, s.ratio);
  return s;
}

// gate bisect exit 3, "decided nothing, twice": a failure when the step's last interval was narrow
// enough for the band to decide (the slowdown or band was sized wrong), a loud skip with the figures
// when the interval was wider than the band itself (2 x threshold): no placement of it could be
// decided, the noise won. Returns true when the test should skip.
bool too_noisy(const CliOutcome& o, const BisectSizing& s) {
  if (o.code != 3 || o.err.find("decided nothing, twice") == std::string::npos) return false;
  static const std::regex interval(R"(\[([0-9.]+), ([0-9.]+)\])");
  double lo = 0, hi = 0;
  for (std::sregex_iterator it(o.err.begin(), o.err.end(), interval), end; it != end; ++it) {
    lo = std::stod((*it)[1]);
    hi = std::stod((*it)[2]);
  }
  if (hi - lo <= 2 * s.threshold) return false;
  std::printf("%s: the last interval [%.3f, %.3f] is wider than the %.0f%% band (%.3f > %.3f); measured: %s\n",
              kTooNoisy, lo, hi, 100 * s.threshold, hi - lo, 2 * s.threshold, s.figures().c_str());
  return true;
}

// A git repository of the shop with n commits, the slow_at-th making pricing.Apply slower by the
// sized factor; the commits' SHAs, oldest first. Each step decides on pricing.Apply alone: 6-14
// runs, against the sized band, speed-normalized over 8 functions, so that both "regression" and
// "unchanged" are reached on a noisy 2-vCPU machine (one function without normalization and a 10%
// band left an unchanged commit inconclusive after 14 runs).
std::vector<std::string> make_repo(const std::string& repo, int n, int slow_at, const BisectSizing& s) {
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
                                     << "workload: $GATE_BINARY " << kBisectArgs << "\n"
                                     << "runs: " << kBisectRuns << "\n"
                                     << "max_runs: " << kBisectMaxRuns << "\n"
                                     << "env: {GOMAXPROCS: \"1\"}\n"
                                     // 8 functions: gate ab takes the machine's speed out (>= 5)
                                     << "functions:\n" << kShopFunctions
                                     << "quantiles: [p50]\n"
                                     << "measure: probes\n"
                                     << "threshold: " << std::lround(100 * s.threshold) << "%\n";
  std::ofstream(repo + "/.gitignore") << "bin/\n";
  std::vector<std::string> shas;
  for (int i = 1; i <= n; ++i) {
    std::ofstream(repo + "/CHANGES", std::ios::app) << "change " << i << "\n";
    if (i == slow_at)
      std::ofstream(repo + "/cmd/shop/zz_slow.go") << "package main\n\nimport \"os\"\n\n"
                                                   << "// This commit's change: pricing.Apply got slower.\n"
                                                   << "func init() { os.Setenv(\"SHOP_SLOW\", \"" << kApply
                                                   << "=" << s.factor << "\") }\n";
    git({"add", "-A"});
    git({"commit", "-q", "-m", "c" + std::to_string(i) + (i == slow_at ? ": slower pricing" : ": a change")});
    shas.push_back(git({"rev-parse", "HEAD"}).substr(0, 40));
  }
  return shas;
}

const std::map<std::string, std::string> kGoCache = {{"GOCACHE", std::string(GATE_BINARY_DIR) + "/gocache-bisect"}};

TEST(HistoryE2E, BisectNamesTheSlowedCommitOfEight) {
  REQUIRE_ROOT();
  const BisectSizing s = size_bisect();
  ASSERT_GT(s.factor, 0) << "the knob cannot make Apply read " << s.ratio << "x: " << s.figures();
  const std::string repo = temp_dir("bisect-repo");
  const auto shas = make_repo(repo, 8, 5, s);
  const auto o = run_gate({"bisect", shas[0], shas[7], "-c", repo + "/gate.yaml", "--function", kApply}, {.env = kGoCache});
  std::printf("%s\n%s\n%s\n", s.figures().c_str(), o.out.c_str(), o.err.c_str());
  if (too_noisy(o, s)) FAIL() << kTooNoisy << ": " << s.figures();
  ASSERT_EQ(o.code, 0) << s.figures() << "\n" << o.err;
  EXPECT_NE(o.out.find("first bad commit: " + shas[4]), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(3 steps for 7 commits)"), std::string::npos) << o.out;  // ceil(log2 7)
  fs::remove_all(repo);
}

// From a change point: the history measured commits 1-4 and 7-12 (synthetic results under the
// repository's real SHAs, Apply's p50 1.5x from commit 7), so its change point names commit 7 and
// commits 5 and 6 were never measured; bisect starts there and names commit 6 in 2 steps.
TEST(HistoryE2E, BisectStartsFromAChangePoint) {
  REQUIRE_ROOT();
  const BisectSizing s = size_bisect();
  ASSERT_GT(s.factor, 0) << "the knob cannot make Apply read " << s.ratio << "x: " << s.figures();
  const std::string repo = temp_dir("bisect-from-change");
  const auto shas = make_repo(repo, 12, 6, s);
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
  std::printf("%s\n%s\n%s\n", s.figures().c_str(), o.out.c_str(), o.err.c_str());
  if (too_noisy(o, s)) FAIL() << kTooNoisy << ": " << s.figures();
  ASSERT_EQ(o.code, 0) << s.figures() << "\n" << o.err;
  EXPECT_NE(o.out.find("after " + shas[3].substr(0, 12) + " up to " + shas[6].substr(0, 12)), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("first bad commit: " + shas[5]), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(2 steps for 3 commits)"), std::string::npos) << o.out;
  fs::remove(db.substr(7));
  fs::remove_all(repo);
}
