// A config's verdict settings as the statistics' options: quantiles, threshold bands (default, per
// quantile, per function written against patterns), calls-change policy, insufficient-data policy.
#pragma once

#include <vector>

#include "results/result.hpp"
#include "runner/config.hpp"
#include "stats/compare.hpp"

namespace gate::verdict {

// nullptr: the statistics' defaults. Per-function thresholds are written against patterns: each
// function of `functions` takes the first pattern that matches it. Throws gate::Error (exit 2) for
// settings the statistics refuse.
stats::CompareOptions compare_options(const runner::Config* cfg, const std::vector<FunctionInfo>& functions);

}  // namespace gate::verdict
