// True time end to end (issue 9, acceptance 4), as root on the bundled example: `gate ab` with the
// head copy's pricing.Apply slowed through SHOP_SLOW flags Apply and its caller (*Cart).Checkout,
// and every report format says that Checkout's extra time went to pricing.Apply.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/files.hpp"
#include "results/result.hpp"
#include "probe/probe_fixture.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

TEST(TrueTimeE2e, AttributionNamesTheSlowedCallee) {
  GATE_REQUIRE_ROOT();
  const std::string shop = build_shop_example();
  const fs::path dir = fs::temp_directory_path() / ("gate-attribution-" + std::to_string(getpid()));
  fs::create_directories(dir / "base");
  fs::create_directories(dir / "head");
  fs::copy_file(shop, dir / "base" / "shop", fs::copy_options::overwrite_existing);
  fs::copy_file(shop, dir / "head" / "shop", fs::copy_options::overwrite_existing);
  const std::string cfg = (dir / "gate.yaml").string();
  // Apply 1000x slower in the head copy only: Apply takes ~3 us of Checkout's ~1.8 ms per call, so
  // this adds ~3 ms (~2.5x) to Checkout, far beyond its per-pair noise (up to ~40% on a loaded
  // moment; 200x, ~1.3x, was left undecided once in a full-suite run), and it goes to Apply.
  std::ofstream(cfg) << "name: shop-attribution\n"
                     << "binary: head/shop\n"
                     << "workload: |\n"
                     << "  case \"$GATE_BINARY\" in */head/shop) export SHOP_SLOW='example.com/shop/pricing.Apply=1000';; esac\n"
                     << "  exec \"$GATE_BINARY\" -orders 400 -workers 1 -q\n"
                     // ab stops at its first decided regression (Apply's, at once): 10 pairs from the
                     // start let Checkout's verdict be decided in the same look (~8 were needed at
                     // the 38% per-pair noise of a loaded moment).
                     << "runs: 10\nmax_runs: 16\n"
                     << "env: {GOMAXPROCS: \"1\"}\n"
                     << "threshold: 10%\nquantiles: [p50]\nmeasure: probes\n"
                     << "functions:\n"
                     << "  - example.com/shop/pricing.Apply\n"
                     << "  - example.com/shop.(*Cart).Checkout\n"
                     << "  - example.com/shop.Order.Invoice\n"
                     << "  - example.com/shop.ValidateOrder\n";
  const auto base = (dir / "base" / "shop").string(), head = (dir / "head" / "shop").string();
  const std::string md = (dir / "report.md").string(), js = (dir / "report.json").string(),
                    html = (dir / "report.html").string();
  auto r = run_gate({"ab", "-c", cfg, "--base-binary", base, "--head-binary", head, "--format",
                     "text,markdown,json,html", "--output", "-", "--output", md, "--output", js, "--output", html});
  std::printf("--- ab, head's pricing.Apply 1000x slower (exit %d):\n%s\n", r.code, r.out.c_str());
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  const auto flagged = regressions(r.out);
  EXPECT_NE(std::find(flagged.begin(), flagged.end(), "example.com/shop/pricing.Apply"), flagged.end()) << r.out;
  ASSERT_NE(std::find(flagged.begin(), flagged.end(), "example.com/shop.(*Cart).Checkout"), flagged.end()) << r.out;
  // Checkout's line names Apply first: the callee with the largest share of the extra time.
  static const std::regex checkout_line(
      R"(where the time went: example\.com/shop\.\(\*Cart\)\.Checkout \+[0-9.]+[mu]?s/call: example\.com/shop/pricing\.Apply \+[0-9.]+[mu]?s \(([0-9]+)%\))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, checkout_line)) << r.out;
  EXPECT_GE(std::stoi(m[1]), 50) << "Apply took most of Checkout's extra time: " << m[0];
  for (const auto& file : {md, js, html}) {
    const auto text = read_file(file);
    ASSERT_TRUE(text) << file;
    EXPECT_NE(text->find("example.com/shop/pricing.Apply +"), std::string::npos) << file;
    EXPECT_NE(text->find("where the time went"), std::string::npos) << file;
  }
  fs::remove_all(dir);
}

// With --true-time every run is compensated, not only the first: gate re-attaches its probes between runs, and a
// session rebuilt without the calibrated costs once recorded raw times from run 2 on (raw == comp).
// Exact: a call without traced children and not clamped loses exactly its own bias, the same
// integer number of ns in every run.
TEST(TrueTimeE2e, EveryRunIsCompensatedTheSameWay) {
  GATE_REQUIRE_ROOT();
  const std::string shop = build_shop_example();
  const fs::path dir = fs::temp_directory_path() / ("gate-everyrun-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string cfg = (dir / "gate.yaml").string(), out = (dir / "r.json").string();
  std::ofstream(cfg) << "binary: " << shop << "\nworkload: " << shop << " -orders 100 -workers 1 -q\n"
                     << "env: {GOMAXPROCS: \"1\"}\nfunctions:\n"
                     << "  - example.com/shop.(*Store).Get\n  - example.com/shop.(*Cart).Add\n"
                     << "  - example.com/shop.Order.Invoice\n";
  auto r = run_gate({"run", "-q", "-c", cfg, "--runs", "4", "--true-time", "--out", out});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const ResultFile res = load_result_file(out);
  ASSERT_TRUE(res.context.calibration.present);
  ASSERT_EQ(res.runs.size(), 4u);
  std::map<std::string, uint64_t> bias;  // per function: raw - compensated per call, from run 1
  int checked = 0;
  for (const auto& run : res.runs) {
    for (const auto& f : run.functions) {
      ASSERT_TRUE(f.true_time.present) << f.name << " run " << run.index;
      ASSERT_GT(f.calls, 0u) << f.name << " run " << run.index;
      EXPECT_GT(f.true_time.raw_sum_ns, f.sum_ns) << f.name << " run " << run.index << ": not compensated";
      if (f.true_time.descendants || f.true_time.clamped || f.true_time.uncompensated) continue;
      const uint64_t diff = f.true_time.raw_sum_ns - f.sum_ns;
      EXPECT_EQ(diff % f.calls, 0u) << f.name << " run " << run.index;
      const auto [it, first] = bias.emplace(f.name, diff / f.calls);
      if (!first) {
        EXPECT_EQ(diff / f.calls, it->second) << f.name << " run " << run.index;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 4) << "Get and Invoice have no traced children: at least one per run";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gate::testing
