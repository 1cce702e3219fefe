// `gate calibrate`: an A/A run of the user's own workload (the same binary as base and head, runs
// interleaved as gate ab does) that prints, per function, the measured run-to-run noise, the
// smallest slowdown gate would catch at the configured runs, and the runs a given slowdown needs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "cli/commands.hpp"
#include "cli/profile_flags.hpp"
#include "runner/units.hpp"
#include "cli/report_flags.hpp"
#include "common/error.hpp"
#include "stats/sequential.hpp"
#include "verdict/calibration.hpp"
#include "verdict/judge.hpp"
#include "verdict/options.hpp"
#include "verdict/why.hpp"

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

std::string share_text(const verdict::CalibrationRow& r) {
  if (!(r.sources.sampling > 0)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * r.sampling_share());
  return b;
}

std::string moment_text(const verdict::CalibrationRow& r) {
  if (r.sources.moment_mean < 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%+-%.0f%%", 100 * r.sources.moment_mean, 100 * r.sources.moment_sd);
  return b;
}

// The functions short of their target within max_runs, grouped by what would help them, and why.
void print_advice(const verdict::Calibration& cal, int max_runs) {
  using Advice = verdict::CalibrationRow::Advice;
  bool any = false;
  for (const auto& r : cal.rows) any |= r.advice != Advice::kNone;
  if (!any) return;
  std::printf("\nshort of the slowdown within max_runs (%d pairs); what would help:\n", max_runs);
  auto group = [&](Advice advice, const char* why, auto&& line) {
    bool header = false;
    for (const auto& r : cal.rows) {
      if (r.advice != advice) continue;
      if (!header) std::printf("%s", why);
      header = true;
      line(r);
    }
  };
  const auto state_line = [](const verdict::CalibrationRow& r) {
    std::printf("    %s %s: %.1f%% per pair, %.0f%% of it from its %.0f calls' sampling; calls at %s of the run\n",
                r.function.c_str(), r.quantile.c_str(), 100 * r.noise, 100 * r.sampling_share(), r.sources.calls_per_run,
                moment_text(r).c_str());
  };
  group(Advice::kLongerRuns,
        "  longer runs: most of the noise is which calls a run happened to make; with 4x the calls a run\n"
        "  (a longer workload, if it makes more of these calls):\n",
        [](const verdict::CalibrationRow& r) {
          std::printf("    %s %s: %.1f%% -> ~%.1f%% per pair (%.0f calls a run)\n", r.function.c_str(),
                      r.quantile.c_str(), 100 * r.noise, 100 * r.noise_with_calls(4), r.sources.calls_per_run);
        });
  group(Advice::kLongerOrMoreRuns,
        "  longer runs or more runs: less than half of the noise is the calls' sampling; the rest is the state\n"
        "  calls met (the machine's speed swings over 0.1-1 s). These calls are spread over the run, so a\n"
        "  longer run averages more of the swings into each run:\n",
        state_line);
  group(Advice::kMoreRuns,
        "  more runs (max_runs): less than half of the noise is the calls' sampling; the rest is the state\n"
        "  calls met, once per run: these calls are made in a burst (start-up work), or when is not known,\n"
        "  and a longer run would not average it:\n",
        state_line);
}

int print_calibration(const stats::Comparison& c, const runner::Config& cfg, const stats::CompareOptions& o,
                      double slowdown, int pairs, const verdict::AbJudged& j) {
  const int runs = cfg.runs, max_runs = std::max(cfg.runs, cfg.max_runs);
  const verdict::Calibration cal =
      verdict::calibrate(c, runs, max_runs, slowdown, o.confidence, &j.base.result.runs, &j.head.result.runs);
  std::printf("%-48s %-5s %10s %10s %11s %14s %14s %18s\n", "function", "", "noise/pair", "from calls", "calls at",
              ("caught @" + std::to_string(runs)).c_str(), ("caught @" + std::to_string(max_runs)).c_str(),
              "pairs for the slowdown");
  for (const auto& r : cal.rows)
    std::printf("%-48s %-5s %9.1f%% %10s %11s %14s %14s %11s (%s)\n", r.function.c_str(), r.quantile.c_str(),
                100 * r.noise, share_text(r).c_str(), moment_text(r).c_str(), pct(r.caught_at_runs).c_str(),
                pct(r.caught_at_max).c_str(),
                runs_text(r.pairs_for_target, verdict::Calibration::kMaxPairs).c_str(), pct(r.target).c_str());
  print_advice(cal, max_runs);
  std::printf("\n%d pairs of A/A runs; %s\n", pairs, c.method_short.c_str());
  std::printf("units: %s\n", runner::unit_advice(j.head.result, runner::min_unit_seconds(cfg, runner::UnitCommand::kCalibrate)).c_str());
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
    if (cal.suggested_max_runs > stats::SequentialLooks::kMaxIntegratedLast)
      std::printf("note: with max_runs past %d each look's p-value is multiplied by the number of looks (Bonferroni;\n"
                  "  README: How it decides), so pairs beyond that buy less than their count suggests: for the\n"
                  "  functions that need them, a longer workload per run or a wider threshold costs less\n",
                  stats::SequentialLooks::kMaxIntegratedLast);
  }
  return 0;
}

}  // namespace

std::function<int()> add_calibrate(CLI::App& app, const Globals& g) {
  struct Args {
    MeasureFlags m;
    double slowdown = 0;
    uint64_t seed = 1;
    ProfileFlags profile;
  };
  auto a = std::make_shared<Args>();
  add_measure_flags(app, a->m);
  app.add_option("--slowdown", a->slowdown,
                 "The slowdown to size runs for, as a fraction (0.2 = 20%; default: twice the threshold)")
      ->check(CLI::Range(0.001, 10.0));  // a negative or zero slowdown is a typo, not "the default"
  app.add_option("--seed", a->seed, "Seed of the run order (default 1)");
  add_profile_flag(app, a->profile);
  app.footer(
      "gate calibrate runs the workload as an A/A (the same binary on both sides, runs interleaved as in\n"
      "gate ab) and prints per function what a comparison on this machine can see: the run-to-run noise,\n"
      "the smallest slowdown caught at the config's runs and max_runs, and the pairs of runs a given\n"
      "slowdown needs. Run it on the machine your CI uses. 'from calls' is the share of the noise that is\n"
      "chance in which calls a run made: a longer run shrinks it; the rest, more runs average out. 'calls\n"
      "at' is when in the run the calls were made (mean +- sd, as shares of the run): calls spread over\n"
      "the run meet more of the machine's speed swings in a longer run; calls made in a burst do not.\n"
      "A unit lasts at least min_unit_seconds (config, default 1 s): 'units:' says how many executions of\n"
      "the workload made one and why.\n"
      "Examples:\n"
      "  gate calibrate -c gate.yaml --runs 12\n"
      "  gate calibrate -c gate.yaml --slowdown 0.1    # size the runs for a 10% slowdown\n"
      "  gate calibrate -c gate.yaml --profile    # also profile-base/head.pb.gz and the A/A frame test");
  return [a, &g]() -> int {
    runner::SignalWatch signals;
    runner::Config cfg = runner::load_config(a->m.config);
    auto mo = measure_options(a->m, g);
    if (!mo.skip_build) runner::run_build(cfg, [&](const std::string& l) { g.log(l); }, &signals);
    const int pairs = a->m.runs ? a->m.runs : std::max(10, cfg.runs);
    if (const int least = stats::CompareOptions{}.min_runs; pairs < least)
      throw Error::make("gate calibrate --runs " + std::to_string(pairs),
                        "too few pairs: a function's noise needs >= " + std::to_string(least) + " pairs of runs",
                        "use --runs " + std::to_string(least) + " or more (10 or more for a steadier figure)");
    mo.runs = pairs;  // a fixed number of pairs: max_runs below is the same
    auto profiler = start_profile(profile_hz(a->profile, cfg), {{"base", cfg.binary}, {"head", cfg.binary}}, mo.session);
    const verdict::AbJudged j = verdict::ab(cfg, cfg.binary, cfg.binary, mo, a->seed, pairs, &signals);
    verdict::throw_failure(j);
    verdict::explain_calibrate(j, profiler.get(), "", [&g](const std::string& l) { g.log(l); });
    const auto opts = verdict::compare_options(&cfg, j.head.result.functions);
    return print_calibration(j.comparison, cfg, opts, a->slowdown, pairs, j);
  };
}

}  // namespace gate::cli
