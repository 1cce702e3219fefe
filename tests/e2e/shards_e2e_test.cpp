// One gate ab split over three shards and merged (issue 44), end to end as root on the bundled
// example: the shards run one after another, as a CI matrix's jobs would on their own runners, and
// gate merge judges their pairs together. An A/A whose second shard ran beside a CPU hog (its runner
// slower, as a slower CI machine) must flag nothing; a head whose pricing.Apply is slower by a factor
// sized from Apply's measured cost and noise must flag Apply alone. Under the default `measure`
// (issue 54): each shard sizes its own sampled executions and runs its own pilot pair, which the
// merge leaves out of every test and every count.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "probe/probe_fixture.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"
#include "support/noise.hpp"
#include "sharding/shards.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

const std::string kApply = "example.com/shop/pricing.Apply";
const std::vector<std::string> kFunctions = {kApply, "example.com/shop.(*Store).Get",
                                             "example.com/shop.(*Category).Walk", "example.com/shop.SumBy[...]"};
constexpr int kShards = 3;
constexpr int kPairs = 12;  // 4 a shard
// 300 orders (~0.75 s an execution; 600 before issue 40): 53 executions of the shop a run of the
// test, and the band and slowdown are sized from the noise measured with this same workload.
const std::string kArgs = "-orders 300 -workers 1 -q";

// Busy loops on every CPU while alive, at nice -5 so that they outweigh whatever else this shared
// machine runs at nice 0: the runner of the shard beside them is slower and noisier.
class CpuHog {
 public:
  explicit CpuHog(int loops) {
    for (int i = 0; i < loops; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        execl("/usr/bin/nice", "nice", "-n", "-5", "/bin/sh", "-c", "while :; do :; done", static_cast<char*>(nullptr));
        _exit(127);
      }
      pids_.push_back(pid);
    }
  }
  ~CpuHog() {
    for (pid_t p : pids_) kill(p, SIGKILL);
    for (pid_t p : pids_) waitpid(p, nullptr, 0);
  }

 private:
  std::vector<pid_t> pids_;
};

struct Shop {
  fs::path dir;
  std::string base, head;  // the same build in base/ and head/: the workload slows head by SHOP_SLOW
};

Shop copies(const std::string& name) {
  Shop s;
  s.dir = fs::temp_directory_path() / (name + "-" + std::to_string(getpid()));
  fs::create_directories(s.dir / "base");
  fs::create_directories(s.dir / "head");
  const std::string shop = build_shop_example();
  s.base = (s.dir / "base" / "shop").string();
  s.head = (s.dir / "head" / "shop").string();
  fs::copy_file(shop, s.base, fs::copy_options::overwrite_existing);
  fs::copy_file(shop, s.head, fs::copy_options::overwrite_existing);
  return s;
}

std::string config(const Shop& s, const std::string& name, double slow_factor, double threshold) {
  const std::string cfg = (s.dir / name).string();
  std::ofstream out(cfg);
  out << "name: shop-shards\nbinary: head/shop\nworkload: |\n  case \"$GATE_BINARY\" in */head/shop) ";
  if (slow_factor > 0) out << "export SHOP_SLOW='" << kApply << "=" << slow_factor << "';; ";
  else out << ";; ";
  out << "esac; exec \"$GATE_BINARY\" " << kArgs << "\n"
      << "runs: " << kPairs << "\nenv: {GOMAXPROCS: \"1\"}\n"
      << "threshold: " << std::lround(100 * threshold) << "%\nquantiles: [p50]\nfunctions:\n";
  for (const auto& f : kFunctions) out << "  - " << f << "\n";
  return cfg;
}

// Shard k of kShards of `cfg`; hog_shard's runs beside a CPU hog. Returns the partial's path.
std::string run_shard(const Shop& s, const std::string& cfg, int k, bool hog) {
  // Named after the config: the A/A's partials must outlive the slow comparison's.
  const std::string partial = (s.dir / (fs::path(cfg).stem().string() + "-shard" + std::to_string(k) + ".json")).string();
  std::optional<CpuHog> busy;
  if (hog) busy.emplace(static_cast<int>(std::max(2L, sysconf(_SC_NPROCESSORS_ONLN))));
  const auto r = run_gate({"ab", "-q", "-c", cfg, "--base-binary", s.base, "--head-binary", s.head, "--shard",
                           std::to_string(k) + "/" + std::to_string(kShards), "--partial-out", partial});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("shard " + std::to_string(k) + "/3 measured 4 pairs"), std::string::npos) << r.out;
  return partial;
}

double median_duration(const std::string& partial) {
  const Partial p = load_partial(partial);
  std::vector<double> d;
  for (const auto& r : p.base.runs) d.push_back(r.duration_s / std::max(1, r.executions));
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

CliOutcome merge(const Shop& s, const std::string& cfg, const std::vector<std::string>& partials,
                 const std::string& report_dir) {
  std::vector<std::string> args = {"merge", "-c", cfg, "--report-dir", report_dir};
  args.insert(args.end(), partials.begin(), partials.end());
  return run_gate(args);
}

// Sized here: Apply's own time, its probed p50 and that p50's run-to-run noise with this workload
// and traced set. The band holds the A/A's interval at kPairs (10%, or 1.25x the raw half-width);
// the head reads wholly above it (the band times a second half-width, and at least 2x: the test is
// the shards' and merge's plumbing, and Apply's size is exact, no traced callee in its window).
// 1.3x left it undecided under a load of 12 on the 2 vCPUs: [0.902, 1.595] after 12 pairs, a
// TOO NOISY skip, where the 5 runs measured before had read a cv of 3.2% (issue 40's trial).
struct Sizing {
  double threshold = 0, ratio = 0, factor = 0;
  std::string figures;
};

Sizing size_for(const Shop& s) {
  const FunctionCost cost = measure_shop_function(
      {.binary = s.base, .args = kArgs, .env = {{"GOMAXPROCS", "1"}}, .functions = kFunctions, .runs = 5}, kApply);
  // The merge's intervals come from 3 strata of 4 pairs (a noise model per runner): ~1.4x as wide as
  // one gate ab's of 12 pairs at equal noise (docs/sharding.md, "What the strata cost and buy").
  constexpr double kStrataWidening = 1.4;
  const double hw = kStrataWidening * interval_half_width(cost.cv(), kPairs);
  Sizing z;
  z.threshold = std::min(0.5, std::max(0.10, 1.25 * hw));
  z.ratio = std::max(2.0, (1 + z.threshold) * (1 + 2 * hw));
  z.factor = shop_factor_for(cost, z.ratio);
  char sizing[160];
  std::snprintf(sizing, sizeof sizing, "; band %.0f%%, head sized to read %.2fx (SHOP_SLOW factor %.2f)",
                100 * z.threshold, z.ratio, z.factor);
  z.figures = cost.figures() + sizing;
  std::printf("%s\n", z.figures.c_str());
  return z;
}

// A/A, shard 2 beside a CPU hog: its runner slower, yet its pairs' ratios are its own. In the long
// tier (ctest label `long`, GATE_LONG=1 bash ci/test.sh): ~110 s of the suite's serial time, and
// its three recorded trials are tests/bench/results/shards-hog-aa-3trials.txt
// (tests/bench/shards_hog_trial.sh); the merge's logic on a slower shard is shards_test's.
TEST(ShardsE2e, ThreeShardsMergedPassAnAAWithAHog) {
  GATE_REQUIRE_ROOT();
  const Shop s = copies("gate-shards-aa");
  const Sizing z = size_for(s);
  const std::string same = config(s, "same.yaml", 0, z.threshold);
  std::vector<std::string> aa;
  for (int k = 1; k <= kShards; ++k) aa.push_back(run_shard(s, same, k, k == 2));
  // Against the faster of the other two: another process's load may have slowed one of them too.
  const double slowed = median_duration(aa[1]) / std::min(median_duration(aa[0]), median_duration(aa[2]));
  std::printf("--- A/A: shard 2 (beside the hog) ran %.2fx the time of the faster other shard an execution\n", slowed);
  EXPECT_GT(slowed, 1.15) << "the hog did not slow shard 2's runner: the test did not test a slower runner";
  const auto aa_merged = merge(s, same, aa, (s.dir / "aa").string());
  std::printf("--- merge, A/A (exit %d):\n%s\n%s\n", aa_merged.code, aa_merged.out.c_str(), aa_merged.err.c_str());
  EXPECT_EQ(aa_merged.code, 0) << z.figures << "\n" << aa_merged.out << aa_merged.err;
  EXPECT_TRUE(regressions(aa_merged.out).empty()) << aa_merged.out;
  for (int k = 1; k <= kShards; ++k)
    EXPECT_NE(aa_merged.err.find("shard " + std::to_string(k) + ": 4 pairs"), std::string::npos) << aa_merged.err;
  // Partials of two comparisons (this A/A's shard 3 with another config's shards): refused, naming
  // the file.
  const std::string other = config(s, "other.yaml", 0, z.threshold + 0.01);
  const std::string other3 = run_shard(s, other, 3, false);
  const auto mixed = merge(s, same, {aa[0], aa[1], other3}, (s.dir / "mixed").string());
  EXPECT_EQ(mixed.code, 2) << mixed.out << mixed.err;
  EXPECT_NE(mixed.err.find(other3), std::string::npos) << mixed.err;
  EXPECT_NE(mixed.err.find("another config"), std::string::npos) << mixed.err;
  fs::remove_all(s.dir);
}

// Apply slower in the head: the merge of 3 shards flags Apply alone (the default tier).
TEST(ShardsE2e, ThreeShardsMergedFlagOnlyASlowApply) {
  GATE_REQUIRE_ROOT();
  const Shop s = copies("gate-shards");
  const Sizing z = size_for(s);
  const std::string& figures = z.figures;
  const double threshold = z.threshold;
  ASSERT_GT(z.factor, 0) << "the knob cannot make Apply read " << z.ratio << "x: " << figures;
  const std::string slow = config(s, "slow.yaml", z.factor, threshold);
  std::vector<std::string> parts;
  for (int k = 1; k <= kShards; ++k) parts.push_back(run_shard(s, slow, k, false));
  const std::string report_dir = (s.dir / "slow").string();
  const auto merged = merge(s, slow, parts, report_dir);
  std::printf("--- merge, Apply slower (exit %d): %s\n%s\n%s\n", merged.code, figures.c_str(), merged.out.c_str(),
              merged.err.c_str());
  if (merged.code == 0) {
    // Undecided (inconclusive, or a suspect: above the band on its own test, not after the family's
    // correction): a failure when Apply's interval was narrow enough for the band to decide it (the
    // slowdown was sized wrong), a loud skip when it was wider than the band itself. 4 pairs a
    // shard give each runner's noise 3 degrees of freedom: seen once in 1 repeat here (1.90x
    // [1.44, 2.50], a suspect at a 50% band).
    std::ifstream in(fs::path(report_dir) / "report.json");
    const auto js = nlohmann::json::parse(in);
    for (const auto& f : js.at("functions"))
      if (f.at("name") == kApply && !f.at("quantiles").empty()) {
        const auto& q = f.at("quantiles")[0];
        const double lo = q.at("ci_low").get<double>(), hi = q.at("ci_high").get<double>();
        const auto verdict = q.at("verdict").get<std::string>();
        if ((verdict == "inconclusive" || verdict == "suspect") && hi - lo > 2 * threshold) {
          std::printf("%s: Apply's interval [%.3f, %.3f] after %d pairs is wider than the %.0f%% band; measured: %s\n",
                      kTooNoisy, lo, hi, kPairs, 100 * threshold, figures.c_str());
          FAIL() << kTooNoisy << ": " << figures;
        }
      }
  }
  EXPECT_EQ(merged.code, 1) << figures << "\n" << merged.out << merged.err;
  EXPECT_EQ(regressions(merged.out), std::vector<std::string>{kApply}) << merged.out;
  EXPECT_TRUE(fs::exists(fs::path(report_dir) / "report.json"));

  fs::remove_all(s.dir);
}

}  // namespace
}  // namespace gate::testing
