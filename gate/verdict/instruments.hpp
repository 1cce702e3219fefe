// The instrument of each function in the verdict (issue 39): a function measured by CPU samples
// has its probes' latency tests replaced by the sampled test (stats/instrument.hpp), and the family
// is decided again over the tests that remain.
#pragma once

#include <vector>

#include "results/result.hpp"
#include "stats/compare.hpp"

namespace gate::verdict {

// Chooses each function's instrument (o.measure, o.measure_default; auto from the first unit of each
// side), records it and the probe share in `c`, and replaces the sampled functions' tests. Re-decides
// the family (verdict::redecide) when a test was replaced. Nothing changes when no run was sampled
// and no function is set to samples.
void judge_instruments(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                       const std::vector<RunResult>& head_runs, const stats::CompareOptions& o);

}  // namespace gate::verdict
