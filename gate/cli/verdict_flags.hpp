// The verdict's command-line choices shared by check, ab and compare: whether a suspected
// regression fails the build, and how far measuring goes on for one. They override the config.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "results/result.hpp"
#include "runner/config.hpp"

namespace gate::cli {

struct SuspectFlags {
  std::optional<bool> fail_on_suspect;  // --fail-on-suspect / --no-fail-on-suspect
  int suspect_max_runs = 0;             // --suspect-max-runs (measuring commands only)
};
// measuring: also --suspect-max-runs (check, ab; not compare, which measures nothing).
void add_suspect_flags(CLI::App& app, SuspectFlags& f, bool measuring);
// The flags into the config (a flag wins over the config's key). Throws gate::Error (exit 2) for
// --suspect-max-runs below the runs the command will make anyway.
void apply_suspect_flags(const SuspectFlags& f, runner::Config& cfg, int runs, int max_runs);

// --thresholds-ref REF (gate ab, gate merge; issue 56): the verdict settings of the config as
// committed at REF, the base commit, judge, so that a change cannot loosen its own gate.
struct ThresholdsRef {
  std::string ref;                 // the flag's value ("" not given)
  runner::Config head;             // this change's own config, for the notice
  std::optional<runner::Config> base;
  std::string repo_path;           // the config's path in the repository
};
void add_thresholds_ref_flag(CLI::App& app, std::string& ref, const std::string& what);
// Into `cfg` the base's verdict settings when REF has the config; else a notice of why not (the
// head's settings then judge). Returns what the notice after measuring needs.
ThresholdsRef apply_thresholds_ref(const std::string& ref, runner::Config& cfg, std::vector<std::string>& notices);
// After measuring: the notice when the head's settings differ from the base's it applied.
void note_thresholds_ref(const ThresholdsRef& t, const std::vector<FunctionInfo>& functions,
                         std::vector<std::string>& notices);

}  // namespace gate::cli
