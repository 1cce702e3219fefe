// The Go benchmarks' section of every report format (config `benchmarks: go`): per benchmark and
// unit, base -> head and head/base with its interval and verdict, like benchstat's table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "results/result.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// A metric's value with its unit: durations of ns/op as "1.23ms/op", others "%.4g unit".
std::string benchmark_value(double v, const std::string& unit);
// head/base of the values with the interval ("1.30x [1.22, 1.40]"), also for higher-is-better
// units (whose test is base/head, so that > 1 is worse); "-" when not tested.
std::string benchmark_change(const stats::BenchmarkMetricComparison& m);
// "benchmarks: 1 regression, 0 improvements, 8 unchanged, 1 inconclusive (10 metrics of 4 benchmarks)".
std::string benchmark_summary(const stats::BenchmarkComparison& b);

// Empty when the comparison has no benchmarks. quiet leaves out unchanged metrics.
std::string benchmark_text(const stats::Comparison& c, bool quiet);
std::string benchmark_markdown(const stats::Comparison& c, bool quiet);
std::string benchmark_html(const stats::Comparison& c);
nlohmann::ordered_json benchmark_json(const stats::Comparison& c);
// gate run's benchmark lines: per benchmark and unit the median, min and max over the runs (empty
// when no run holds benchmarks).
std::string benchmark_run_table(const ResultFile& r);
// JUnit testcases, one per metric (a regression is a failure); `failures` and `tests` are added to.
std::string benchmark_junit(const stats::Comparison& c, int* tests, int* failures);

}  // namespace gate::report
