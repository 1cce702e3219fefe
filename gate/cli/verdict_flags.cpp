// --fail-on-suspect, --no-fail-on-suspect and --suspect-max-runs.
#include "cli/verdict_flags.hpp"

#include <algorithm>

#include "cli/flags.hpp"
#include "common/error.hpp"
#include "verdict/threshold_diff.hpp"

namespace gate::cli {

void add_suspect_flags(CLI::App& app, SuspectFlags& f, bool measuring) {
  flag_callback(app, "--fail-on-suspect", Rerun::kCarried, [&f] { f.fail_on_suspect = true; },
                "Fail (exit 1) on a suspected regression too: a test past its threshold on its own whose "
                "interval after the correction for all tests still reaches below it (config fail_on_suspect)");
  flag_callback(app, "--no-fail-on-suspect", Rerun::kCarried, [&f] { f.fail_on_suspect = false; },
                "Report suspected regressions without failing (overrides the config)");
  if (measuring)
    option(app, "--suspect-max-runs", Rerun::kCarried, f.suspect_max_runs,
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

void add_thresholds_ref_flag(CLI::App& app, std::string& ref, const std::string& what) {
  // Carried: whose thresholds judge is the verdict.
  option(app, "--thresholds-ref", Rerun::kCarried, ref,
         "Judge with the verdict settings (thresholds, quantiles, policies) of the config as committed at "
         "REF, the base commit, when it has one, so that a change cannot loosen its own gate; a notice "
         "says when this change's config differs (" + what + ")")
      ->type_name("REF");
}

ThresholdsRef apply_thresholds_ref(const std::string& ref, runner::Config& cfg, std::vector<std::string>& notices) {
  ThresholdsRef t;
  t.ref = ref;
  t.head = cfg;
  if (ref.empty()) return t;
  verdict::ConfigAtRef at = verdict::config_at_ref(ref, cfg);
  t.repo_path = at.repo_path;
  if (at.cfg) {
    cfg = verdict::with_verdict_settings_of(cfg, *at.cfg);
    t.base = std::move(at.cfg);
  } else {
    notices.push_back(at.notice);
  }
  return t;
}

void note_thresholds_ref(const ThresholdsRef& t, const std::vector<FunctionInfo>& functions,
                         std::vector<std::string>& notices) {
  if (!t.base) return;
  const std::string notice = verdict::ab_threshold_notice(t.ref, t.repo_path, *t.base, t.head, functions);
  if (!notice.empty()) notices.push_back(notice);
}

}  // namespace gate::cli
