// explain: the one place that writes the sentences reports and logs show about a comparison.
// stats/ computes and returns values (intervals, p-values, power, noise sources, and why each
// verdict is what it is: stats::Why, stats::Finding, stats::MethodFacts); these functions turn them
// into English. explain() fills a Comparison's reason, note, method and warning strings in place;
// verdict/ calls it once per comparison, after every test of the family is decided.
// May include: stats, results, common.
#pragma once

#include <string>

#include "stats/compare.hpp"
#include "stats/noise_sources.hpp"

namespace gate::explain {

// Why a test's verdict is what it is: what is missing, or what would decide it ("" when decided).
// For an undecided test with a power estimate: how many units would decide it, and where its noise
// comes from (noise_hint).
std::string reason(const stats::QuantileComparison& qc, const stats::CompareOptions& o);

// A quantile compared by the mean of the calls around it because it lies between two modes.
std::string mode_window_note(const std::string& quantile, const stats::ModeWindow& w);

// For an undecided test with per-pair noise `noise`: what would narrow it besides more runs, as a
// clause for its reason ("" when the split is unknown or says nothing new).
std::string noise_hint(const stats::NoiseSources& s, double noise);

// One finding as a warning line.
std::string finding(const stats::Finding& f);

// How the verdicts were reached: one long sentence and a short label.
std::string method(const stats::Comparison& c, const stats::CompareOptions& o);
std::string method_short(const stats::Comparison& c, const stats::CompareOptions& o);

// Fills every test's reason and note, the method lines, and puts the findings' warnings first in
// c.warnings (before any the caller added). Call again after re-deciding a comparison: the
// sentences are redone and the findings' warnings replaced, not repeated.
void explain(stats::Comparison& c, const stats::CompareOptions& o);

}  // namespace gate::explain
