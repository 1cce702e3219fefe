// --fail-on-suspect, --no-fail-on-suspect and --suspect-max-runs.
#include "cli/verdict_flags.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace gate::cli {

void add_suspect_flags(CLI::App& app, SuspectFlags& f, bool measuring) {
  app.add_flag_callback("--fail-on-suspect", [&f] { f.fail_on_suspect = true; },
                        "Fail (exit 1) on a suspected regression too: a test past its threshold on its own whose "
                        "interval after the correction for all tests still reaches below it (config fail_on_suspect)");
  app.add_flag_callback("--no-fail-on-suspect", [&f] { f.fail_on_suspect = false; },
                        "Report suspected regressions without failing (overrides the config)");
  if (measuring)
    app.add_option("--suspect-max-runs", f.suspect_max_runs,
                   "Measure past --max-runs, up to this many, while a test past its threshold looks decidable by "
                   "then (config suspect_max_runs; default twice max_runs when max_runs > runs)")
        ->check(CLI::Range(1, 10000));
}

void apply_suspect_flags(const SuspectFlags& f, runner::Config& cfg, int runs, int max_runs) {
  if (f.fail_on_suspect) cfg.fail_on_suspect = f.fail_on_suspect;
  if (f.suspect_max_runs <= 0) return;
  const int floor = std::max({runs > 0 ? runs : cfg.runs, max_runs > 0 ? max_runs : cfg.max_runs});
  if (f.suspect_max_runs < floor)
    throw Error::make("--suspect-max-runs " + std::to_string(f.suspect_max_runs),
                      "is below the runs the command makes anyway (" + std::to_string(floor) + ")",
                      "give at least " + std::to_string(floor) + ", or drop it", ExitCode::kUsage);
  cfg.suspect_max_runs = f.suspect_max_runs;
}

}  // namespace gate::cli
