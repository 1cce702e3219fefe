// End to end on the bundled example, as root: record a baseline, check the unchanged program
// (exit 0), then check it with (*Category).Walk made slower through SHOP_SLOW (exit 1, naming that
// function and no other; the factor sized from Walk's own and probed time and noise measured first,
// so that the measured noise decides it at the first look (`runs`), and reads >= 1.5x against the
// 20% band, >= 1.3x against gate ab's 10%). Not larger: the size is a lower bound, since the knob's
// clock around the recursive Walk times its nested calls' probes too (issue 40 tried 2.5x and 2x:
// they read 25.6x and 11.5x, and the slowed check's runs took ~14 s each). The traced set leaves out
// Walk's caller GenerateReport (its time includes Walk's), and Walk runs in its own phase of the
// driver, apart from the checkout path. The unchanged check and the A/A take one look (--max-runs =
// runs): a false alarm there fails as before, and "inconclusive" was never a failure, so runs up to
// max_runs bought time, not a stricter test (issue 40).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "probe/probe_fixture.hpp"
#include "results/result.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"
#include "support/noise.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

CliOutcome gate_cli(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  return run_gate(args, {.env = env});
}

const std::string kWalk = "example.com/shop.(*Category).Walk";

// The SHOP_SLOW factor for (*Category).Walk, sized where the test runs: Walk's own time (SHOP_TIMING),
// its probed p50 and that p50's run-to-run noise with the test's workload and traced set; the slowed
// side reads wholly above the band at max_runs (the band times the raw noise's half-width), and at
// least `least`. A fixed factor reads diluted where a uprobe hit costs more (Walk's window holds its
// traced children's probes, which the knob does not stretch). `runs` is the first look's pairs (or
// runs): sized at it, a regression stops the loop there. `figures` gets what was measured.
double walk_factor(const std::string& shop, const std::vector<std::string>& functions, double band, int runs,
                   double least, std::string& figures) {
  const FunctionCost c = measure_shop_function(
      {.binary = shop, .args = "-orders 600 -workers 1 -q", .env = {{"GOMAXPROCS", "1"}}, .functions = functions,
       .runs = 6},
      kWalk);
  const double ratio = std::max(least, (1 + band) * (1 + 2 * interval_half_width(c.cv(), runs)));
  const double factor = shop_factor_for(c, ratio);
  char b[128];
  std::snprintf(b, sizeof b, "; slowed side sized to read %.2fx (SHOP_SLOW factor %.2f)", ratio, factor);
  figures = c.figures() + b;
  std::printf("%s\n", figures.c_str());
  return factor;
}

TEST(Verdict, RecordCheckUnchangedThenCatchOneSlowFunction) {
  GATE_REQUIRE_ROOT();
  const std::string shop = build_shop_example();
  const fs::path dir = fs::temp_directory_path() / ("gate-verdict-cfg-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string cfg = (dir / "gate.yaml").string();
  std::ofstream(cfg) << "name: shop-e2e\n"
                     << "binary: " << shop << "\n"
                     << "workload: " << shop << " -orders 600 -workers 1 -q\n"
                     << "runs: 6\n"
                     << "max_runs: 30\n"
                     << "env: {GOMAXPROCS: \"1\"}\n"
                     // 20%, not 10%: against a baseline recorded minutes earlier, the machine's state
                     // moves small functions unlike the rest (Order.Invoice, ~4.5 us, read 1.16x
                     // [1.13, 1.19] over 30 runs, unchanged code, while a noise lab and two builds
                     // shared the 2 vCPUs with the test); gate ab's test below keeps 10%.
                     << "threshold: 20%\n"
                     // p50 only: against a baseline recorded at another moment, a tail measures the
                     // machine's load as much as the code (Walk's p99 went 0.8 -> 3.7 ms unchanged when
                     // a build started between record and check); gate ab's test below checks p99.
                     << "quantiles: [p50]\n"
                     << "measure: probes\n"  // sized from Walk's probed noise (walk_factor)
                     << "functions:\n"
                     << "  - example.com/shop/pricing.Apply\n"
                     << "  - example.com/shop.(*Store).Get\n"
                     << "  - example.com/shop.(*Cart).Add\n"
                     << "  - example.com/shop.Order.Invoice\n"
                     << "  - example.com/shop.(*Category).Walk\n"
                     << "  - example.com/shop.SumBy[...]\n";
  const std::string baseline = (dir / "baseline.json").string();

  // The baseline gets more runs than a check starts with: its run-to-run spread bounds every
  // interval, and it is measured once while checks come many times.
  auto rec = gate_cli({"record", "-q", "-c", cfg, "--baseline", baseline, "--runs", "8"});
  ASSERT_EQ(rec.code, 0) << rec.err;
  // A second record without --force must refuse and leave the baseline alone.
  auto again = gate_cli({"record", "-q", "-c", cfg, "--baseline", baseline});
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;

  auto same = gate_cli({"check", "-c", cfg, "--baseline", baseline, "--max-runs", "6"});
  std::printf("--- unchanged check (exit %d):\n%s\n", same.code, same.out.c_str());
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_TRUE(regressions(same.out).empty()) << same.out;

  const std::string head = (dir / "head.json").string();
  std::string figures;
  const double factor = walk_factor(shop,
                                    {"example.com/shop/pricing.Apply", "example.com/shop.(*Store).Get",
                                     "example.com/shop.(*Cart).Add", "example.com/shop.Order.Invoice", kWalk,
                                     "example.com/shop.SumBy[...]"},
                                    0.20, 6, 1.5, figures);
  ASSERT_GT(factor, 0) << figures;
  auto slow = gate_cli({"check", "-c", cfg, "--baseline", baseline, "--out", head},
                       {{"SHOP_SLOW", kWalk + "=" + std::to_string(factor)}});
  std::printf("--- check with (*Category).Walk slowed (exit %d): %s\n%s\n", slow.code, figures.c_str(), slow.out.c_str());
  EXPECT_EQ(slow.code, 1) << figures << "\n" << slow.out << slow.err;
  EXPECT_EQ(regressions(slow.out), std::vector<std::string>{"example.com/shop.(*Category).Walk"}) << slow.out;

  // Offline comparison of the stored head result gives the same verdict (fixed seed).
  auto cmp = gate_cli({"compare", baseline, head, "-c", cfg});
  EXPECT_EQ(cmp.code, 1) << cmp.out;
  EXPECT_EQ(regressions(cmp.out), std::vector<std::string>{"example.com/shop.(*Category).Walk"}) << cmp.out;
}

// gate ab: two copies of one binary, runs interleaved in one job. The workload reads GATE_BINARY
// (set by gate per side) and slows Walk only in the head copy: exit 1 naming Walk; with nothing
// slowed, exit 0.
TEST(Verdict, AbInterleavedCatchesTheSlowHeadOnly) {
  GATE_REQUIRE_ROOT();
  const std::string shop = build_shop_example();
  const fs::path dir = fs::temp_directory_path() / ("gate-ab-" + std::to_string(getpid()));
  fs::create_directories(dir / "base");
  fs::create_directories(dir / "head");
  fs::copy_file(shop, dir / "base" / "shop", fs::copy_options::overwrite_existing);
  fs::copy_file(shop, dir / "head" / "shop", fs::copy_options::overwrite_existing);
  std::string figures;
  const double factor = walk_factor(shop,
                                    {"example.com/shop/pricing.Apply", "example.com/shop.(*Store).Get", kWalk,
                                     "example.com/shop.SumBy[...]"},
                                    0.10, 6, 1.3, figures);
  ASSERT_GT(factor, 0) << figures;
  auto config = [&](const std::string& name, bool slow_head) {
    const std::string cfg = (dir / name).string();
    std::ofstream(cfg) << "name: shop-ab\n"
                       << "binary: head/shop\n"
                       << "workload: |\n"
                       << "  case \"$GATE_BINARY\" in */head/shop) "
                       << (slow_head ? "export SHOP_SLOW='" + kWalk + "=" + std::to_string(factor) + "';; " : ";; ")
                       << "esac; exec \"$GATE_BINARY\" -orders 600 -workers 1 -q\n"
                       << "runs: 6\nmax_runs: 14\n"
                       << "env: {GOMAXPROCS: \"1\"}\n"
                       << "threshold: 10%\nthresholds: {p99: 30%}\nmeasure: probes\n"
                       << "functions:\n"
                       << "  - example.com/shop/pricing.Apply\n"
                       << "  - example.com/shop.(*Store).Get\n"
                       << "  - example.com/shop.(*Category).Walk\n"
                       << "  - example.com/shop.SumBy[...]\n";
    return cfg;
  };
  const auto base = (dir / "base" / "shop").string(), head = (dir / "head" / "shop").string();
  auto slow = gate_cli({"ab", "-c", config("slow.yaml", true), "--base-binary", base, "--head-binary", head,
                        "--out-head", (dir / "head.json").string()});
  std::printf("--- ab, head slower in Walk (exit %d): %s\n%s\n", slow.code, figures.c_str(), slow.out.c_str());
  EXPECT_EQ(slow.code, 1) << figures << "\n" << slow.out << slow.err;
  EXPECT_EQ(regressions(slow.out), std::vector<std::string>{"example.com/shop.(*Category).Walk"}) << slow.out;
  // Both sides really ran, interleaved: the head result holds head's runs.
  const auto h = load_result_file((dir / "head.json").string());
  EXPECT_EQ(h.extra.at("variant"), "head");
  EXPECT_GE(h.runs.size(), 6u);

  auto same = gate_cli({"ab", "-q", "-c", config("same.yaml", false), "--base-binary", base, "--head-binary", head,
                        "--max-runs", "6"});
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_TRUE(regressions(same.out).empty()) << same.out;
}

// gate calibrate: an A/A of the config's own binary through the real probes; a table row per
// tested function and quantile with its noise, and suggested runs.
TEST(Verdict, CalibratePrintsNoiseAndWhatItCanCatch) {
  GATE_REQUIRE_ROOT();
  const std::string shop = build_shop_example();
  const fs::path dir = fs::temp_directory_path() / ("gate-calibrate-" + std::to_string(getpid()));
  fs::create_directories(dir / "bin");
  fs::copy_file(shop, dir / "bin" / "shop", fs::copy_options::overwrite_existing);
  const std::string cfg = (dir / "cal.yaml").string();
  std::ofstream(cfg) << "binary: bin/shop\nworkload: bin/shop -orders 300 -workers 1 -q\nruns: 5\nmax_runs: 20\n"
                     << "env: {GOMAXPROCS: \"1\"}\nthreshold: 10%\nquantiles: [p50]\nmeasure: probes\nfunctions:\n"
                     << "  - example.com/shop/pricing.*\n  - example.com/shop.(*Store).Get\n"
                     << "  - example.com/shop.(*Cart).Add\n  - example.com/shop.SumBy[...]\n";
  auto r = gate_cli({"calibrate", "-q", "-c", cfg, "--runs", "5"});
  std::printf("--- calibrate (exit %d):\n%s\n", r.code, r.out.c_str());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("noise/pair"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("from calls"), std::string::npos) << r.out;  // the calls' sampling share
  EXPECT_NE(r.out.find("example.com/shop/pricing.Apply"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("example.com/shop.(*Store).Get"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5 pairs of A/A runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("suggested: runs: "), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(Verdict, CorruptOrPartialBaselineIsAClearError) {
  const fs::path dir = fs::temp_directory_path() / ("gate-verdict-bad-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string truncated = (dir / "truncated.json").string();
  std::ofstream(truncated) << "{\"schema\": \"gate.result\", \"schema_version\": 1, \"runs\": [";
  auto r1 = gate_cli({"compare", truncated, truncated});
  EXPECT_EQ(r1.code, 2);
  EXPECT_NE(r1.err.find("truncated.json"), std::string::npos) << r1.err;
  EXPECT_NE(r1.err.find("not valid JSON"), std::string::npos) << r1.err;

  const std::string future = (dir / "future.json").string();
  std::ofstream(future) << R"({"schema": "gate.result", "schema_version": 99, "context": {}, "functions": [], "runs": []})";
  auto r2 = gate_cli({"compare", future, future});
  EXPECT_EQ(r2.code, 2);
  EXPECT_NE(r2.err.find("schema version 99"), std::string::npos) << r2.err;

  const std::string partial = (dir / "partial.json").string();
  std::ofstream(partial) << R"({"schema": "gate.result", "schema_version": 1, "partial": true,
      "partial_reason": "interrupted", "context": {}, "functions": [], "runs": []})";
  auto r3 = gate_cli({"compare", partial, partial});
  EXPECT_EQ(r3.code, 2);
  EXPECT_NE(r3.err.find("partial"), std::string::npos) << r3.err;

  // A baseline of another binary's functions.
  auto one = [&](const std::string& name, const std::string& fn) {
    const std::string p = (dir / name).string();
    std::ofstream(p) << R"({"schema": "gate.result", "schema_version": 1, "context": {"binary_path": "/x/)" << name
                     << R"("}, "functions": [{"id": 0, "name": ")" << fn
                     << R"("}], "runs": [{"index": 1, "functions": [{"name": ")" << fn
                     << R"(", "calls": 2, "histogram": [[100, 2]]}]}]})";
    return p;
  };
  auto r5 = gate_cli({"compare", one("other.json", "other.pkg.F"), one("mine.json", "main.work")});
  EXPECT_EQ(r5.code, 2) << r5.out;
  EXPECT_NE(r5.err.find("shares no function"), std::string::npos) << r5.err;
  EXPECT_NE(r5.err.find("other.pkg.F"), std::string::npos) << r5.err;

  auto r4 = gate_cli({"compare", (dir / "missing.json").string(), partial});
  EXPECT_EQ(r4.code, 2);
  EXPECT_NE(r4.err.find("gate record"), std::string::npos) << "the fix: " << r4.err;
}

}  // namespace
}  // namespace gate::testing
