// explain: the one place that writes the sentences reports and logs show about a comparison.
// stats/ computes and returns values (intervals, p-values, power, noise sources, and why each
// verdict is what it is: stats::Why, stats::Finding, stats::MethodFacts, stats::BenchmarkFinding);
// these functions turn them into English when a report or a log renders them, so that a
// re-decided comparison never carries a stale sentence.
// May include: stats, results, common.
#pragma once

#include <string>
#include <vector>

#include "stats/compare.hpp"
#include "stats/noise_sources.hpp"

namespace gate::explain {

// Why a test's verdict is what it is: what is missing, or what would decide it ("" when decided).
// For an undecided test with a power estimate: how many units would decide it, and where its noise
// comes from (noise_hint).
std::string reason(const stats::QuantileComparison& qc);

// What else a test's reader should know: it was compared by the mean of the calls around it
// (mode_window_note), its sparse samples were pooled (QuantileComparison::pooled), its interval was
// widened for the layouts ("" when none).
std::string note(const stats::QuantileComparison& qc);

// A quantile compared by the mean of the calls around it because it lies between two modes.
std::string mode_window_note(const std::string& quantile, const stats::ModeWindow& w);

// For an undecided test with per-pair noise `noise`: what would narrow it besides more runs, as a
// clause for its reason ("" when the split is unknown or says nothing new).
std::string noise_hint(const stats::NoiseSources& s, double noise);

// One finding as a warning line.
std::string finding(const stats::Finding& f);

// Why speed normalization was not used ("" when it was, or was not asked for).
std::string speed_not_used(const stats::SpeedNotUsed& s);

// How the verdicts were reached: one long sentence and a short label.
std::string method(const stats::Comparison& c);
std::string method_short(const stats::Comparison& c);

// Every warning of a comparison, in the order the reports list them: the findings, the
// benchmarks' (one side only, output lines, units on one side, a side without results), the
// measuring layer's notes (Annotations::warnings: uncalled functions, rounds, slices, a
// noisy shard), then a config changed since the baseline.
std::vector<std::string> warnings(const stats::Comparison& c, const std::vector<std::string>& notes = {});

// One benchmark finding ("BenchmarkX-2: B/op is in base but not in head; not compared"), and the
// benchmark section's own list of them.
std::string benchmark_finding(const stats::BenchmarkFinding& f);
std::vector<std::string> benchmark_warnings(const stats::BenchmarkComparison& b);

// A benchmark metric's modes across executions: each mode's values, its share of each side's
// executions and its change, and which fold the verdict rests on ("" when no side has modes).
std::string benchmark_modes(const stats::BenchmarkMetricComparison& m);

// Which executions the benchmark figures came from: one side's ("" when no run holds benchmark
// figures), and a comparison's (the two sides' when they differ).
std::string benchmark_source(const stats::BenchmarkSource& s);
std::string benchmark_source(const stats::BenchmarkComparison& b);

// gate merge: a shard much noisier than the median shard. `weight` < 0: its pairs widen every
// interval (it shares its stratum); else the share of the estimates its pairs weigh.
std::string noisy_shard(int index, const std::string& hostname, double times_median, double weight);

}  // namespace gate::explain
