// A config's verdict settings as the statistics' options: quantiles, threshold bands (default, per
// quantile, per function written against patterns), calls-change policy, insufficient-data policy.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/result.hpp"
#include "runner/config.hpp"
#include "stats/compare.hpp"

namespace gate::verdict {

// nullptr: the statistics' defaults. Per-function thresholds are written against patterns: each
// function of `functions` takes the first pattern that matches it. Throws gate::Error (exit 2) for
// settings the statistics refuse.
stats::CompareOptions compare_options(const runner::Config* cfg, const std::vector<FunctionInfo>& functions);

// The looks of a measure-until-decided loop, as results record them (extra "looks": "10..30"), so
// that `gate compare` of a check's or ab's results decides as the loop did.
std::string looks_text(int first, int last);
// o with first_look/last_look from head's extra "looks" (unchanged when absent or unreadable).
stats::CompareOptions with_looks(stats::CompareOptions o, const ResultFile& head);

// The options a report states beside a comparison: the config's (or the defaults) for head's
// functions, with head's looks; nullopt without a head result.
std::optional<stats::CompareOptions> report_options(const runner::Config* cfg, const ResultFile* head);

}  // namespace gate::verdict
