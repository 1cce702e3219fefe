// Units and layouts end to end (issue 29), as root, on the bundled shop example built by the test
// with Go 1.27: a short workload (~0.3 s an execution) in gate ab with no unit setting in the config
// (the default min_unit_seconds does the work), (a) A/A passes and reports executions per unit
// above 1, (b) (*Cart).Add made slower by an init function in the head's source (SHOP_SLOW, as
// ci/demo.sh does; the factor sized from Add's own and probed time and noise measured first, to read
// >= 1.35x) is flagged and nothing else, (c) with three -randlayout builds a side, the
// A/A passes and the slowed function is flagged. Why (*Cart).Add and not pricing.Apply: the knob
// stretches a function's body as timed by its own clock (Apply: ~1.1 us), and the probed window of
// a ~2 us function adds the probes' cost, so Apply=1.35 reads ~1.1-1.15x through gate (1.04x
// [0.85, 1.27] in one trial here), not a 1.35x change; Add (~13 us) reads 1.34x.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "probe/probe_fixture.hpp"
#include "results/result.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"
#include "support/noise.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

const std::string kAdd = "example.com/shop.(*Cart).Add";
const std::string kGet = "example.com/shop.(*Store).Get";

// The slowed (*Cart).Add is flagged, and nothing but it and its callee (*Store).Get. Why Get may be:
// the knob slows Add by a busy-wait after its body, sized from the body it measures (Get's call
// and its probes included), and in a clean-clone run Add read 13.6x, so each execution spent most
// of its time spinning; there Get read 1.15 us -> 1.42 us, 1.23x [1.11, 1.37], with 0% layout
// share: what runs around Get's calls (caches, the CPU's speed, preemption) is the head's own doing,
// and Get is the one function each Add call enters. Not pinned down further. Any other function
// flagged, or Add not flagged, fails.
void expect_add_flagged(const std::string& out) {
  const std::vector<std::string> flagged = regressions(out);
  EXPECT_NE(std::find(flagged.begin(), flagged.end(), kAdd), flagged.end()) << out;
  for (const auto& name : flagged) EXPECT_TRUE(name == kAdd || name == kGet) << name << " flagged:\n" << out;
}
constexpr const char* kArgs = "-orders 80 -workers 1 -q";
constexpr int kRuns = 6, kMaxRuns = 12;

struct Shop {
  GoToolchain go;
  fs::path dir;
  std::string slow_src;  // the shop with (*Cart).Add slower (an init function in main)

  double factor = 0;    // SHOP_SLOW's factor for (*Cart).Add, sized from what was measured here
  std::string figures;  // what was measured, for every assertion's message

  Shop() {
    for (const auto& tc : go_toolchains())
      if (tc.minor() >= 23) go = tc;  // -randlayout needs Go 1.23 or later; the newest is taken
    dir = fs::temp_directory_path() / ("gate-units-" + std::to_string(getpid()));
    fs::create_directories(dir);
    if (go.go.empty()) return;
    // The slowdown, sized where the test runs: (*Cart).Add's own time (SHOP_TIMING), its probed p50
    // and that p50's run-to-run noise with this workload; the head reads wholly above the 10% band
    // at max_runs (the band times the raw noise's half-width, and at least 1.35x). Not larger: the
    // knob's clock around Add times its traced (*Store).Get's probes too, so the size is a lower bound
    // that reads several times over (1.35x sized read ~7x; 2x sized, factor 18.6, read 18.1x and the
    // head's (*Store).Get 1.65 us slower, flagged: issue 40's trial), and it decides at the first look.
    // Measured once for both cases (the same binary, workload and traced set).
    static const FunctionCost cost = measure_shop_function(
        {.binary = build(false, 0), .args = std::string(kArgs), .env = {{"GOMAXPROCS", "1"}}, .functions = functions(),
         .runs = 6},
        kAdd);
    const double ratio = std::max(1.35, 1.10 * (1 + 2 * interval_half_width(cost.cv(), kMaxRuns)));
    factor = shop_factor_for(cost, ratio);
    char b[128];
    std::snprintf(b, sizeof b, "; head sized to read %.2fx (SHOP_SLOW factor %.2f)", ratio, factor);
    figures = cost.figures() + b;
    std::printf("%s\n", figures.c_str());
    const fs::path src = fs::path(GATE_SOURCE_DIR) / "examples" / "shop";
    slow_src = (dir / "slow-src").string();
    fs::remove_all(slow_src);
    fs::copy(src, slow_src, fs::copy_options::recursive);
    fs::remove_all(fs::path(slow_src) / "bin");
    std::ofstream(fs::path(slow_src) / "cmd" / "shop" / "zz_slow.go")
        << "package main\n\nimport \"os\"\n\n// The head's change: (*Cart).Add got slower.\n"
        << "func init() { os.Setenv(\"SHOP_SLOW\", \"" << kAdd << "=" << factor << "\") }\n";
  }
  static std::vector<std::string> functions() {
    return {"example.com/shop/pricing.Apply", "example.com/shop.(*Store).Get", kAdd,
            "example.com/shop.(*Cart).Checkout", "example.com/shop.Order.Invoice", "example.com/shop.ValidateOrder",
            "example.com/shop.(*Category).Walk", "example.com/shop.SumBy[...]"};
  }
  std::string build(bool slow, int layout_seed) const {
    GoBuild b;
    b.src_dir = slow ? slow_src : (fs::path(GATE_SOURCE_DIR) / "examples" / "shop").string();
    b.package = "./cmd/shop";
    b.toolchain = go;
    if (layout_seed) b.flags = {"-ldflags=-randlayout=" + std::to_string(layout_seed)};
    return build_go(b);
  }
  // No unit setting: gate ab's default min_unit_seconds makes the units.
  std::string config() const {
    const std::string cfg = (dir / "gate.yaml").string();
    std::ofstream(cfg) << "name: shop-units\n"
                       << "binary: bin/shop\n"
                       // a binary in a slowN/ folder is the head of the layouts case: the
                       // same build as the base's layout N, its (*Cart).Add slowed by the knob
                       << "workload: case \"$GATE_BINARY\" in */slow[0-9]/shop) export SHOP_SLOW='" << kAdd << "="
                       << factor << "';; esac; exec \"$GATE_BINARY\" " << kArgs << "\n"
                       << "runs: " << kRuns << "\nmax_runs: " << kMaxRuns << "\n"
                       << "env: {GOMAXPROCS: \"1\"}\n"
                       << "threshold: 10%\nquantiles: [p50]\nmeasure: probes\n"
                       << "functions:\n";
    for (const auto& f : functions()) std::ofstream(cfg, std::ios::app) << "  - " << f << "\n";
    return cfg;
  }
};

// Verdict words at the start of the text report's function lines.
std::map<std::string, int> verdict_counts(const std::string& report) {
  std::map<std::string, int> out;
  std::istringstream in(report);
  static const std::regex line(R"(^(regression|suspect|inconclusive|unchanged|improvement)\s+example\.com)");
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) ++out[m[1]];
  }
  return out;
}

// An A/A (aa) takes one look (--max-runs = runs): a false alarm fails it as before, while the runs
// up to max_runs that an undecided A/A took bought time only ("inconclusive" passes too).
CliOutcome ab(const std::string& cfg, const std::vector<std::string>& base, const std::vector<std::string>& head,
              const std::string& out_head, bool aa = false) {
  std::vector<std::string> args{"ab", "-c", cfg, "--out-head", out_head};
  if (aa) args.insert(args.end(), {"--max-runs", std::to_string(kRuns)});
  for (const auto& b : base) args.insert(args.end(), {"--base-binary", b});
  for (const auto& h : head) args.insert(args.end(), {"--head-binary", h});
  return run_gate(args);
}

int executions_of(const ResultFile& r) {
  return r.runs.empty() ? 0 : r.runs.front().executions;
}

TEST(UnitsE2e, ShortWorkloadUnitsPassAAAndCatchOneSlowFunction) {
  GATE_REQUIRE_ROOT();
  const Shop shop;
  ASSERT_FALSE(shop.go.go.empty()) << "no Go >= 1.23 installed (ci/setup.sh installs 1.24-1.27)";
  ASSERT_GT(shop.factor, 0) << "the knob cannot make (*Cart).Add read the sized ratio: " << shop.figures;
  const std::string cfg = shop.config();
  const std::string base = shop.build(false, 0), slow = shop.build(true, 0);
  const std::string head_json = (shop.dir / "head.json").string();

  // (a) A/A: passes, units of several executions.
  auto same = ab(cfg, {base}, {base}, head_json, true);
  std::printf("--- A/A (exit %d):\n%s\n", same.code, same.out.c_str());
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_TRUE(regressions(same.out).empty()) << same.out;
  const ResultFile aa = load_result_file(head_json);
  EXPECT_GT(executions_of(aa), 1) << "a ~0.3 s execution is shorter than the 1 s default unit";
  EXPECT_NE(same.err.find("executions per side)"), std::string::npos) << "progress names the units:\n" << same.err;
  const auto counts = verdict_counts(same.out);
  std::printf("A/A verdicts: %d unchanged, %d inconclusive\n", counts.count("unchanged") ? counts.at("unchanged") : 0,
              counts.count("inconclusive") ? counts.at("inconclusive") : 0);

  // (b) (*Cart).Add slower (sized): flagged, nothing else.
  auto caught = ab(cfg, {base}, {slow}, head_json);
  std::printf("--- (*Cart).Add slowed (exit %d): %s\n%s\n", caught.code, shop.figures.c_str(), caught.out.c_str());
  EXPECT_EQ(caught.code, 1) << shop.figures << "\n" << caught.out << caught.err;
  expect_add_flagged(caught.out);
}

TEST(UnitsE2e, ThreeLayoutsASidePassAAAndCatchTheSlowFunction) {
  GATE_REQUIRE_ROOT();
  const Shop shop;
  ASSERT_FALSE(shop.go.go.empty()) << "no Go >= 1.23 installed (ci/setup.sh installs 1.24-1.27)";
  ASSERT_GT(shop.factor, 0) << "the knob cannot make (*Cart).Add read the sized ratio: " << shop.figures;
  const std::string cfg = shop.config();
  const std::vector<std::string> base{shop.build(false, 1), shop.build(false, 2), shop.build(false, 3)};
  const std::vector<std::string> same{shop.build(false, 4), shop.build(false, 5), shop.build(false, 6)};
  const std::string head_json = (shop.dir / "layouts-head.json").string();

  // The A/A: other seeds a side (every code layout differs between the sides), nothing flagged.
  auto aa = ab(cfg, base, same, head_json, true);
  std::printf("--- A/A over 3 layouts a side (exit %d):\n%s\n", aa.code, aa.out.c_str());
  EXPECT_EQ(aa.code, 0) << aa.out << aa.err;
  EXPECT_TRUE(regressions(aa.out).empty()) << aa.out;
  const ResultFile h = load_result_file(head_json);
  std::set<int> layouts;
  for (const auto& r : h.runs) layouts.insert(r.layout);
  EXPECT_EQ(layouts, (std::set<int>{0, 1, 2})) << "units spread over the three variants";

  // The head as ci/pre-merge.sh builds it: pair i links both sides with seed i, so a change that
  // leaves the function list alone keeps each pair's layout the same on both sides and the layout's
  // effect cancels out of the pair. Here the head is the base's own build of each seed with
  // (*Cart).Add slowed by the knob (slowN/shop: the workload sets SHOP_SLOW). Why not a source
  // change: the head's init function that set the knob was a new function, so -randlayout placed
  // every function elsewhere than in the base's build of the same seed (unmatched layouts), and the
  // slowed Add, whose busy-wait is sized from its own body, moved with each layout: a clean-clone CI
  // run and two runs here read 3.67-3.83x with the interval widened ~1100% ([0.11, 117]) by the
  // between-layout variance of 3 clusters (2 degrees of freedom at the family's corrected level):
  // a suspect, honestly, and a test that could not assert its verdict (docs/units-and-layouts.md).
  std::vector<std::string> slow;
  for (int k = 0; k < 3; ++k) {
    const fs::path d = shop.dir / ("slow" + std::to_string(k + 1));
    fs::create_directories(d);
    fs::copy_file(base[k], d / "shop", fs::copy_options::overwrite_existing);
    slow.push_back((d / "shop").string());
  }
  auto caught = ab(cfg, base, slow, head_json);
  std::printf("--- (*Cart).Add slowed, 3 layouts a side, matched seeds (exit %d): %s\n%s\n", caught.code,
              shop.figures.c_str(), caught.out.c_str());
  EXPECT_EQ(caught.code, 1) << shop.figures << "\n" << caught.out << caught.err;
  expect_add_flagged(caught.out);
}

}  // namespace
}  // namespace gate::testing
