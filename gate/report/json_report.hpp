// The JSON report: every number the verdicts were reached with, in a stable, versioned schema for
// scripts and dashboards ("schema": "gate.report", "schema_version": 2).
#pragma once

#include <string>

#include "report/report_inputs.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// 2: "ci_low"/"ci_high" are the interval that decided (adjusted for the other tests and the looks),
// the test's own moved to "ci_unadjusted_*"; verdict "suspect"; "suspects", "extension".
inline constexpr int kReportSchemaVersion = 2;

// Schema, version 2. Keys are never renamed or removed within a version; new keys may be added.
// Numbers that are undefined (the estimates and ratio of a quantile that was not tested, the calls
// ratio with no base calls) are null. Durations are nanoseconds, thresholds fractions (0.03 = 3%).
//
// {
//   "schema": "gate.report", "schema_version": 2,
//   "command": "check" | "compare" | "ab", "subject": config name or "",
//   "exit_code": 0 | 1 | 3, "outcome": "pass" | "regression" | "could not measure",
//   "headline": "1 regression, 0 improvements, 11 unchanged", "summary": the text summary line,
//   "notices": [string],                       // e.g. the branch changed its baseline/thresholds
//   "counts": {"regression", "suspect", "improvement", "unchanged", "inconclusive",
//              "insufficient_data": int},
//   "base_runs", "head_runs", "tests": int,    // tests: function x quantile tests with enough data
//   "fail_on_suspect": bool, "suspects": [string] (the text report's lines),
//   "extension": null | {"max_runs", "units": int, "tests": [string]} (measured past max_runs),
//   "method": string, "method_short": string,
//   "thresholds": the text report's thresholds line,
//   "options": null | {"quantiles": [string], "confidence", "equivalence_alpha", "first_look",
//              "last_look", "resamples", "seed",
//              "min_runs", "min_tail_calls", "outlier_sigmas", "calls_ratio_threshold", "calls_policy",
//              "multiplicity", "require_sufficient_data", "max_lost_fraction",
//              "default_threshold": {"regression", "improvement"}},
//   "functions": [ worst first:
//     {"name", "package", "verdict": "regression" | "suspect" | "inconclusive" | "insufficient data" |
//      "unchanged" | "improvement", "reason": string,
//      "calls": {"base_per_run", "head_per_run", "ratio", "changed", "fails"},
//      "counters": {"base" | "head": {"calls", "unmatched_entries", "unmatched_returns",
//                                     "diverted_entries", "dropped"}},
//      "quantiles": [{"name", "verdict", "threshold": {"regression", "improvement"},
//                     "base_ns", "head_ns", "ratio",
//                     "ci_low", "ci_high": the interval that decided (each bound at the
//                       one-sided level "ci_level_low" / "ci_level_high" that the multiplicity
//                       and looks correction gave; stats/family.hpp),
//                     "ci_unadjusted_low", "ci_unadjusted_high": the test's own interval at the
//                       confidence level, as if it were the only test at one look,
//                     "p_regression", "p_regression_own" (looks counted, no multiplicity: what a
//                     suspect is judged by), "p_regression_adjusted", "p_improvement",
//                     "p_improvement_adjusted", "p_unchanged", "eq_low", "eq_high",
//                     "base_runs_used", "head_runs_used",
//                     "more_runs_would_help", "reason", and when present "note": string,
//                     "elasticity" (fitted speed power), "pooled_samples": {"base", "head"} (a
//                     cpu/call test of sparse counts, stats::pooled_count_ratio)}]}],
//   "only_in_base": [string], "only_in_head": [string], "warnings": [string],
//   "next_steps": {"rerun", "accept", "accept_note": string},
//   "base" | "head": {"label", "binary", "build_id", "go_version", "kernel", "cpu_model",
//                     "cpu_count", "hostname", "gate_version", "config_hash", "attach_mode",
//                     "started_at", "ended_at", "runs", "partial"} (context fields only when the
//                     result file was given)
// }
std::string render_json(const stats::Comparison& c, const ReportInputs& in);

}  // namespace gate::report
