// gate ab over layout variants: the comparison of check/ab/compare (compare_with_benchmarks), then,
// when the runs name the layout they ran, every interval widened for the variance between
// layouts (stats/layout_variance.hpp), the family decided again and the sentences rewritten; the share of
// each function's variance that comes from layout goes to the reports' annotations.
#pragma once

#include <vector>

#include "results/annotations.hpp"
#include "results/result.hpp"
#include "stats/compare.hpp"

namespace gate::verdict {

// notes (may be nullptr): functions[name].layout_share set for every function whose share could
// be estimated, and cleared for the others. Runs without layouts: compare_with_benchmarks alone.
stats::Comparison judge_with_layouts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                     const ResultFile& base_meta, const ResultFile& head_meta,
                                     const stats::CompareOptions& o, Annotations* notes);

}  // namespace gate::verdict
