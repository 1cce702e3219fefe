// What a Comparison answers about itself: verdict names and counts, whether more runs could
// decide it, and its exit code.
#include "stats/compare.hpp"

#include <algorithm>
#include <cmath>

namespace gate::stats {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kRegression: return "regression";
    case Verdict::kSuspect: return "suspect";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kInsufficientData: return "insufficient data";
    case Verdict::kUnchanged: return "unchanged";
    case Verdict::kImprovement: return "improvement";
  }
  return "?";
}

const QuantileComparison* FunctionComparison::find(std::string_view quantile) const {
  for (const auto& q : quantiles)
    if (q.name == quantile) return &q;
  return nullptr;
}

int& VerdictCounts::operator[](Verdict v) {
  switch (v) {
    case Verdict::kRegression: return regression;
    case Verdict::kSuspect: return suspect;
    case Verdict::kInconclusive: return inconclusive;
    case Verdict::kInsufficientData: return insufficient_data;
    case Verdict::kUnchanged: return unchanged;
    case Verdict::kImprovement: return improvement;
  }
  return insufficient_data;
}
int VerdictCounts::operator[](Verdict v) const { return const_cast<VerdictCounts&>(*this)[v]; }

bool Comparison::need_more_runs(int max_units) const {
  // Paired runs met the same state of the machine, so a regression among them is final. Against a
  // stored baseline a slow spell in the first runs can look like one (pricing.Apply read 1.74x in
  // 1 of 10 e2e checks of unchanged code): there, more runs still dilute it.
  if (fails() && paired) return false;
  // units_to_decide comes from a noisy estimate (a squared ratio of the interval's width to the
  // distance from a threshold): at 7 pairs it is easily off 2-3x. Only a test beyond 4x max_units
  // is given up on (a verdict 20 pairs away at 7 of 14 was decided by 14 in the e2e test).
  auto helps = [&](const QuantileComparison& q) {
    return q.more_runs_would_help &&
           (max_units <= 0 || q.units_to_decide == 0 || q.units_to_decide <= 4 * max_units);
  };
  if (common_shift_tested && helps(common_shift)) return true;
  for (const auto& f : functions) {
    // A function one instrument has decided (issue 54: its latency or its samples called it
    // unchanged or faster) is not measured on for its other instrument's undecided test, and a test
    // that only may flag (QuantileComparison::speaks) only while it reads past its band.
    if (f.verdict == Verdict::kUnchanged || f.verdict == Verdict::kImprovement) continue;
    for (const auto& q : f.quantiles)
      if (helps(q) && (q.speaks || q.ratio > 1 + q.band.regression)) return true;
  }
  for (const auto& m : benchmarks.metrics)
    if (helps(m.test)) return true;
  return false;
}

std::vector<std::string> Comparison::suspects_decidable_within(int within_units,
                                                              const std::string& common_shift_label) const {
  std::vector<std::string> out;
  if (fails() && paired) return out;
  auto worth = [&](const QuantileComparison& q) {
    return (q.verdict == Verdict::kInconclusive || q.verdict == Verdict::kSuspect) && q.ratio > 1 + q.band.regression &&
           q.units_to_decide > 0 && q.units_to_decide <= within_units;
  };
  for (const auto& f : functions)
    for (const auto& q : f.quantiles)
      if (worth(q)) out.push_back(f.name + " " + q.name);
  if (common_shift_tested && worth(common_shift)) out.push_back(common_shift_label);
  for (const auto& m : benchmarks.metrics)
    if (worth(m.test)) out.push_back(m.benchmark + " " + m.unit);
  return out;
}

bool Comparison::regressed() const {
  return counts.regression > 0 || benchmarks.counts.regression > 0 ||
         (common_shift_tested && common_shift.verdict == Verdict::kRegression);
}

bool Comparison::suspected() const {
  return counts.suspect > 0 || benchmarks.counts.suspect > 0 ||
         (common_shift_tested && common_shift.verdict == Verdict::kSuspect);
}

}  // namespace gate::stats
