// The verdict's command-line choices shared by check, ab and compare: whether a suspected
// regression fails the build, and how far measuring goes on for one. They override the config.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

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

}  // namespace gate::cli
