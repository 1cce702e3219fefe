// A measured unit made of several executions of the workload: when one execution is shorter than
// the unit's target length (config min_unit_seconds), gate runs it k times and the unit's figures
// are taken over all k (histograms merged, calls, times and durations summed). The unit is one run
// in the statistics. Pure: no root.
#pragma once

#include <vector>

#include "results/result.hpp"

namespace gate {

// One run from the executions of one unit, in the order they ran: the first one's index, variant,
// start and layout; durations and every counter summed; each function's histogram, calls and
// times merged (its min and max over all); the first non-zero exit code; benchmark results of all
// executions, one line per benchmark (a time per op its fastest execution's, a higher-is-better
// metric its best, the others their iteration-weighted mean: add_benchmark in unit_merge.cpp says
// why), with each execution's own value of the metrics folded to the fastest or best beside it
// (BenchmarkRun::executions, for the modes across executions). A call's moment in the run (FunctionRun::sum_start_us) stays its moment in its own
// execution. executions = the sum of the parts' executions. Empty input: an empty run.
RunResult merge_executions(const std::vector<RunResult>& executions);

}  // namespace gate
