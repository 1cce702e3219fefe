// Why it got slower, end to end (issue 30, acceptance), as root on the bundled example: the head is
// examples/shop with pricing.Apply made slower through an init function (as ci/demo.sh does), by a
// factor sized from Apply's own and probed time measured first, so that it reads >= 2.5x
// and the pricing package built with -gcflags=example.com/shop/pricing=-N -l (so that Apply's
// machine code differs while Checkout's does not). `gate ab --profile=4999 --report-dir D` must exit
// 1 with Apply flagged; D must hold profile-base.pb.gz and profile-head.pb.gz that `go tool pprof`
// reads, the head's naming pricing.Apply and holding the knob's busy-wait frames (instr.(*Func).exit
// waiting on the clock); the text report's block for Apply must name those frames, neither side
// losing over 0.1% of its samples; report.json must say Apply's code
// changed and Checkout's did not; the HTML report must hold the differential flame graph.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/files.hpp"
#include "probe/probe_fixture.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"
#include "support/noise.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

const std::string kApply = "example.com/shop/pricing.Apply";
const std::string kCheckout = "example.com/shop.(*Cart).Checkout";

// The head: a copy of examples/shop with zz_slow.go in cmd/shop, pricing built with -N -l.
std::string build_head(const fs::path& dir, double factor) {
  const fs::path src = dir / "head-src";
  fs::create_directories(src);
  fs::copy(fs::path(GATE_SOURCE_DIR) / "examples/shop", src,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  fs::remove_all(src / "bin");
  std::ofstream(src / "cmd/shop/zz_slow.go")
      << "package main\n\nimport \"os\"\n\n// The head's change: pricing.Apply got slower.\n"
      << "func init() { os.Setenv(\"SHOP_SLOW\", \"" << kApply << "=" << factor << "\") }\n";
  GoBuild b;
  b.src_dir = src.string();
  b.package = "./cmd/shop";
  b.flags = {"-gcflags=example.com/shop/pricing=-N -l"};
  return build_go(b);
}

// The lines of the text report from the function's row up to the next row (indented lines only).
std::string block_of(const std::string& report, const std::string& function) {
  std::istringstream in(report);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    const bool row = !line.empty() && line[0] != ' ';
    if (row) inside = line.find(" " + function + " ") != std::string::npos;
    if (inside) out += line + "\n";
  }
  return out;
}

TEST(WhyE2e, AbProfileNamesTheBusyWaitAndWhichCodeChanged) {
  GATE_REQUIRE_ROOT();
  const fs::path dir = fs::temp_directory_path() / ("gate-why-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string base = build_shop_example();
  // Sized here, not copied from a quiet run: Apply takes ~1-2 us a call and its probes ~6-22 us
  // more on this machine kind, so a fixed 1.3x knob (~0.4 us) read 1.10x [1.06, 1.15] on a fresh
  // host, inconclusive at 10%. Measured first: Apply's own time (SHOP_TIMING), its probed p50 and
  // that p50's run-to-run noise with this workload; the band holds the A/A interval at max_runs
  // (10%, or 1.25x the half-width from the raw noise), the head reads wholly above it at the first
  // look (the band times a second half-width at kRuns pairs, and at least 2.5x), so that gate ab
  // stops there: the test is the profile's plumbing, not gate's sensitivity (issue 40: 8-16 pairs of
  // 4,000 orders took ~105 s; 5-10 pairs of 1,500 orders, the busy-wait still thousands of samples).
  constexpr int kRuns = 5, kMaxRuns = 10;
  const std::string args = "-orders 1500 -q";
  const FunctionCost cost = measure_shop_function(
      {.binary = base, .args = args, .env = {{"GOMAXPROCS", "2"}}, .functions = {kApply, kCheckout}, .runs = 5}, kApply);
  const double hw = interval_half_width(cost.cv(), kMaxRuns);
  const double threshold = std::min(0.5, std::max(0.10, 1.25 * hw));
  const double ratio = std::max(2.5, (1 + threshold) * (1 + 2 * interval_half_width(cost.cv(), kRuns)));
  const double factor = shop_factor_for(cost, ratio);
  char sizing[160];
  std::snprintf(sizing, sizeof sizing, "; band %.0f%%, head sized to read %.2fx (SHOP_SLOW factor %.1f)", 100 * threshold,
                ratio, factor);
  const std::string figures = cost.figures() + sizing;
  std::printf("%s\n", figures.c_str());
  ASSERT_GT(factor, 0) << "the knob cannot make Apply read " << ratio << "x: " << figures;
  const std::string head = build_head(dir, factor);
  const std::string cfg = (dir / "gate.yaml").string();
  std::ofstream(cfg) << "name: shop-why\n"
                     << "binary: " << base << "\n"
                     << "workload: exec \"$GATE_BINARY\" " << args << "\n"
                     << "runs: " << kRuns << "\nmax_runs: " << kMaxRuns << "\n"
                     << "env: {GOMAXPROCS: \"2\"}\n"
                     << "threshold: " << std::lround(100 * threshold) << "%\nquantiles: [p50]\nmeasure: probes\n"
                     << "functions:\n  - " << kApply << "\n  - " << kCheckout << "\n";
  const fs::path report_dir = dir / "report";
  // The knob's busy-wait is (factor - 1) x Apply's own time a call, ~(ratio - 1) x its probed p50:
  // several us over ~1,300 calls a run (1,500 orders), tens of samples a run at 4999 Hz against none in the base
  // (the base never reads the clock in Apply). With the old fixed 0.4 us it took 10,000 orders.
  auto r = run_gate({"ab", "-c", cfg, "--base-binary", base, "--head-binary", head, "--profile=4999", "--report-dir",
                     report_dir.string()});
  std::printf("--- gate ab --profile=4999 (exit %d):\n%s\n%s\n", r.code, r.out.c_str(), r.err.c_str());
  if (r.code == 0) {
    // Undecided: a failure when Apply's interval was narrow enough for the band to decide it (the
    // slowdown was sized wrong), a loud skip when it was wider than the band itself.
    const auto js = read_file((report_dir / "report.json").string());
    ASSERT_TRUE(js) << r.err;
    for (const auto& f : nlohmann::json::parse(*js).at("functions"))
      if (f.at("name") == kApply && !f.at("quantiles").empty()) {
        const auto& q = f.at("quantiles")[0];
        const double lo = q.at("ci_low").get<double>(), hi = q.at("ci_high").get<double>();
        if (q.at("verdict") == "inconclusive" && hi - lo > 2 * threshold) {
          std::printf("%s: Apply's interval [%.3f, %.3f] is wider than the %.0f%% band; measured: %s\n", kTooNoisy, lo,
                      hi, 100 * threshold, figures.c_str());
          FAIL() << kTooNoisy << ": " << figures;
        }
      }
  }
  ASSERT_EQ(r.code, 1) << figures << "\n" << r.out << r.err;
  const auto flagged = regressions(r.out);
  ASSERT_NE(std::find(flagged.begin(), flagged.end(), kApply), flagged.end()) << r.out;

  // The pprof files: go tool pprof reads both; the head's holds pricing.Apply.
  const std::string go = default_go().go;
  for (const char* side : {"base", "head"}) {
    const fs::path file = report_dir / (std::string("profile-") + side + ".pb.gz");
    ASSERT_TRUE(fs::exists(file)) << file;
    const auto raw = run_program({go, "tool", "pprof", "-raw", file.string()}, dir.string());
    EXPECT_EQ(raw.code, 0) << raw.err;
    if (std::string(side) == "head") {
      EXPECT_NE(raw.out.find(kApply), std::string::npos) << raw.out.substr(0, 2000);
      // The knob's busy-wait was sampled in the head (its frames are in the file).
      EXPECT_NE(raw.out.find("instr.(*Func).exit"), std::string::npos) << raw.out.substr(0, 2000);
    }
  }

  // The text report's block for Apply names the knob's busy-wait: instr.(*Func).exit reading the
  // clock (time.Since, runtime.nanotime) over and over.
  const auto text = read_file((report_dir / "report.txt").string());
  ASSERT_TRUE(text);
  const std::string block = block_of(*text, kApply);
  // Its sign is not asserted: ~90% of Apply's samples are the probes' time, whose noise between
  // sides (+-1 us a call) is larger than the knob's 0.4 us; the busy-wait frame is what is named.
  EXPECT_NE(block.find("profile: pricing.Apply "), std::string::npos) << block;
  // Asserted again since the sampler stopped losing samples: it failed twice when the kernel's
  // stack-trace map dropped every later stack whose bucket was taken (the base lost 5-14% of its
  // samples, whole hot stacks at once, and [gate probe] became the only frame named). Count it with
  // `ctest -R '^why_e2e$' --repeat until-fail:20 -V | grep 'busy-wait named'`.
  static const std::regex busy(R"(profile: pricing\.Apply [+-][^\n]*instr\.\(\*Func\)\.exit[^\n]*runtime\.nanotime)");
  const bool named = std::regex_search(block, busy);
  std::printf("busy-wait named in the profile line: %s\n", named ? "yes" : "NO");
  EXPECT_TRUE(named) << block;
  // No side lost more than 0.1% of its samples (each run's stacks are drained, stored by hash).
  static const std::regex account(R"(CPU profile of (base|head): (\d+) samples at \d+ Hz; [0-9.]+% in \[gate probe\]; (\d+) lost)");
  int sides = 0;
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), account), end; it != end; ++it, ++sides)
    EXPECT_LE(std::stod((*it)[3]), 0.001 * std::stod((*it)[2])) << (*it)[0];
  EXPECT_EQ(sides, 2) << r.err;
  EXPECT_NE(block.find("code: code changed"), std::string::npos) << block;
  EXPECT_NE(block.find("go tool pprof -diff_base"), std::string::npos) << block;

  // report.json: Apply's code changed, Checkout's did not.
  const auto js = read_file((report_dir / "report.json").string());
  ASSERT_TRUE(js);
  const auto j = nlohmann::json::parse(*js);
  bool apply = false, checkout = false;
  for (const auto& f : j.at("functions")) {
    if (f.at("name") == kApply) {
      apply = true;
      EXPECT_EQ(f.at("code").at("same"), false) << f.dump(2);
      EXPECT_GT(f.at("profile").at("head_samples").get<uint64_t>(), 0u);
    }
    if (f.at("name") == kCheckout) {
      checkout = true;
      EXPECT_EQ(f.at("code").at("same"), true) << f.dump(2);
    }
  }
  EXPECT_TRUE(apply && checkout) << *js;
  EXPECT_EQ(j.at("annotations").at("profile_files").size(), 2u);

  // The HTML report holds the differential flame graph; the JUnit failure message the profile line.
  const auto html = read_file((report_dir / "report.html").string());
  ASSERT_TRUE(html);
  EXPECT_NE(html->find("<svg class=\"flame\""), std::string::npos);
  const auto junit = read_file((report_dir / "junit.xml").string());
  ASSERT_TRUE(junit);
  EXPECT_NE(junit->find("; profile: pricing.Apply "), std::string::npos);
  fs::remove_all(dir);
}

// gate record --profile writes baselines/NAME.pb.gz beside the baseline; gate check --profile
// writes the head's profile and compares it with that one (both files named in report.json), and
// says so when the baseline has no profile.
TEST(WhyE2e, RecordProfileThenCheckAgainstIt) {
  GATE_REQUIRE_ROOT();
  const fs::path dir = fs::temp_directory_path() / ("gate-why-check-" + std::to_string(getpid()));
  fs::create_directories(dir / "baselines");
  const std::string shop = build_shop_example();
  const std::string cfg = (dir / "gate.yaml").string();
  std::ofstream(cfg) << "name: shop-why\nbinary: " << shop << "\nworkload: exec \"$GATE_BINARY\" -orders 500 -q\n"
                     << "runs: 3\nmax_runs: 3\nenv: {GOMAXPROCS: \"2\"}\nfunctions:\n  - " << kApply << "\n";
  const std::string baseline = (dir / "baselines" / "shop.json").string();
  const fs::path profile = dir / "baselines" / "shop.pb.gz";
  auto rec = run_gate({"record", "-c", cfg, "--baseline", baseline, "--profile=997"});
  ASSERT_EQ(rec.code, 0) << rec.err;
  ASSERT_TRUE(fs::exists(profile)) << rec.err;
  const auto raw = run_program({default_go().go, "tool", "pprof", "-raw", profile.string()}, dir.string());
  EXPECT_EQ(raw.code, 0) << raw.err;
  EXPECT_NE(raw.out.find(kApply), std::string::npos);

  const fs::path report_dir = dir / "report";
  auto check = run_gate({"check", "-c", cfg, "--baseline", baseline, "--profile=997", "--report-dir", report_dir.string()});
  ASSERT_TRUE(check.code == 0 || check.code == 1) << check.err;
  EXPECT_TRUE(fs::exists(report_dir / "profile-head.pb.gz")) << check.err;
  EXPECT_EQ(check.err.find("no CPU profile beside the baseline"), std::string::npos) << check.err;
  const auto js = read_file((report_dir / "report.json").string());
  ASSERT_TRUE(js);
  const auto files = nlohmann::json::parse(*js).at("annotations").at("profile_files");
  ASSERT_EQ(files.size(), 2u) << *js;
  EXPECT_EQ(files[0], profile.string());

  fs::remove(profile);
  auto bare = run_gate({"check", "-c", cfg, "--baseline", baseline, "--profile=997", "--report-dir", report_dir.string()});
  ASSERT_TRUE(bare.code == 0 || bare.code == 1) << bare.err;
  EXPECT_NE(bare.err.find("no CPU profile beside the baseline"), std::string::npos) << bare.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gate::testing
