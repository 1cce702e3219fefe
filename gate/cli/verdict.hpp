// Shared by check/compare/ab: the statistics options a config asks for, and printing the
// comparison report with the exit code it implies.
#pragma once

#include <string>

#include "cli/commands.hpp"
#include "results/result.hpp"
#include "runner/config.hpp"
#include "stats/compare.hpp"

namespace gate::cli {

// Thresholds, quantiles and policies from the config (nullptr: the defaults). Per-function
// thresholds are written against patterns: each function of `functions` takes the first
// pattern that matches it.
stats::CompareOptions compare_options(const runner::Config* cfg, const std::vector<FunctionInfo>& functions);

struct ReportArgs {
  std::string json_out;  // write the head result here too (check/ab)
};

// Prints the text report on stdout and returns the comparison's exit code.
int print_report(const stats::Comparison& c, const Globals& g);

// Loads a baseline for comparing; exit 2 with the fix when missing, corrupt or partial.
ResultFile load_baseline(const std::string& path, const std::string& config_path);

// Default baseline path of a config: its `baseline:` key, else baselines/<name>.json.
std::string default_baseline(const runner::Config& cfg);

}  // namespace gate::cli
