// Go benchmark metrics in the verdict: compared per run like function latencies and decided in ONE
// multiple-testing family with them, so adding benchmarks never loosens the gate's false-alarm rate.
#pragma once

#include <vector>

#include "results/result.hpp"
#include "stats/compare.hpp"

namespace gate::verdict {

// Adds the benchmark comparison to `c` (made by stats::compare from the same runs and options):
// when either side's runs hold benchmark results, the metric tests join the function tests (and
// the tested common shift) in one Holm family; every verdict, the counts, the method and the exit
// code are then re-decided over that family. A benchmark that ran on one side only and a
// malformed result line become warnings naming them. Nothing changes when no run holds benchmarks.
void judge_benchmarks(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                      const std::vector<RunResult>& head_runs, const stats::CompareOptions& o);

// Every test of `c` (functions, the tested common shift, benchmark metrics in the family) decided
// again as one family from the intervals they now hold: after an interval changed (benchmarks
// joined, layouts widened). Its sentences are written when it is rendered (explain/).
void redecide(stats::Comparison& c, const stats::CompareOptions& o);

// stats::compare, then judge_benchmarks: what check, ab and compare call.
stats::Comparison compare_with_benchmarks(const std::vector<RunResult>& base_runs,
                                          const std::vector<RunResult>& head_runs, const ResultFile& base_meta,
                                          const ResultFile& head_meta, const stats::CompareOptions& o);

}  // namespace gate::verdict
