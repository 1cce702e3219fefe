// `gate calibrate`: an A/A run of the user's own workload (the same binary as base and head, runs
// interleaved as gate ab does) that prints, per function, the measured run-to-run noise, the
// smallest slowdown gate would catch at the configured runs, and the runs a given slowdown needs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "cli/commands.hpp"
#include "cli/report_flags.hpp"
#include "verdict/judge.hpp"
#include "verdict/options.hpp"
#include "verdict/calibration.hpp"

namespace gate::cli {
namespace {

std::string pct(double ratio) {
  if (!(ratio > 0)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%+.0f%%", 100 * (ratio - 1));
  return b;
}

std::string runs_text(int units, int max_units) {
  if (units <= 0) return "-";
  return units > max_units ? "> " + std::to_string(max_units) : std::to_string(units);
}

int print_calibration(const stats::Comparison& c, const runner::Config& cfg, const stats::CompareOptions& o,
                      double slowdown, int pairs) {
  const int runs = cfg.runs, max_runs = std::max(cfg.runs, cfg.max_runs);
  const verdict::Calibration cal = verdict::calibrate(c, runs, max_runs, slowdown, o.confidence);
  std::printf("%-48s %-5s %10s %14s %14s %18s\n", "function", "", "noise/pair",
              ("caught @" + std::to_string(runs)).c_str(), ("caught @" + std::to_string(max_runs)).c_str(),
              "pairs for the slowdown");
  for (const auto& r : cal.rows)
    std::printf("%-48s %-5s %9.1f%% %14s %14s %11s (%s)\n", r.function.c_str(), r.quantile.c_str(), 100 * r.noise,
                pct(r.caught_at_runs).c_str(), pct(r.caught_at_max).c_str(),
                runs_text(r.pairs_for_target, verdict::Calibration::kMaxPairs).c_str(), pct(r.target).c_str());
  std::printf("\n%d pairs of A/A runs; %s\n", pairs, c.method_short.c_str());
  if (c.common_shift.tested())
    std::printf("run-to-run speed of the machine (all functions together): %.1f%% per pair\n",
                100 * c.common_shift.noise);
  if (cal.false_regressions)
    std::printf("WARNING: %d test(s) read 'regression' in this A/A: the machine is noisier than the runs can "
                "show; calibrate again with more runs (--runs)\n",
                cal.false_regressions);
  if (cal.rows.empty()) {
    std::printf("no function had enough calls per run to be tested: see 'insufficient data' in gate compare\n");
  } else if (cal.suggested_runs > 0) {
    std::printf("suggested: runs: %d, max_runs: %d (half of the tests decide by %d pairs, 90%% by %d; gate ab adds "
                "pairs while a verdict is inconclusive)\n",
                cal.suggested_runs, cal.suggested_max_runs, cal.suggested_runs, cal.suggested_max_runs);
  }
  return 0;
}

}  // namespace

std::function<int()> add_calibrate(CLI::App& app, const Globals& g) {
  struct Args {
    MeasureFlags m;
    double slowdown = 0;
    uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  add_measure_flags(app, a->m);
  app.add_option("--slowdown", a->slowdown,
                 "The slowdown to size runs for, as a fraction (0.2 = 20%; default: twice the threshold)")
      ->check(CLI::Range(0.001, 10.0));  // a negative or zero slowdown is a typo, not "the default"
  app.add_option("--seed", a->seed, "Seed of the run order (default 1)");
  app.footer(
      "gate calibrate runs the workload as an A/A (the same binary on both sides, runs interleaved as in\n"
      "gate ab) and prints per function what a comparison on this machine can see: the run-to-run noise,\n"
      "the smallest slowdown caught at the config's runs and max_runs, and the pairs of runs a given\n"
      "slowdown needs. Run it on the machine your CI uses.\n"
      "Examples:\n"
      "  gate calibrate -c gate.yaml --runs 12\n"
      "  gate calibrate -c gate.yaml --slowdown 0.1    # size the runs for a 10% slowdown");
  return [a, &g]() -> int {
    runner::SignalWatch signals;
    runner::Config cfg = runner::load_config(a->m.config);
    auto mo = measure_options(a->m, g);
    if (!mo.skip_build) runner::run_build(cfg, [&](const std::string& l) { g.log(l); }, &signals);
    const int pairs = a->m.runs ? a->m.runs : std::max(10, cfg.runs);
    mo.runs = pairs;  // a fixed number of pairs: max_runs below is the same
    const verdict::AbJudged j = verdict::ab(cfg, cfg.binary, cfg.binary, mo, a->seed, pairs, &signals);
    verdict::throw_failure(j);
    const auto opts = verdict::compare_options(&cfg, j.head.result.functions);
    return print_calibration(j.comparison, cfg, opts, a->slowdown, pairs);
  };
}

}  // namespace gate::cli
