// Multiple-testing corrections: one comparison tests every function x quantile, and without a
// correction an unchanged program with 30 functions would fail by chance.
#pragma once

#include <string_view>
#include <vector>

namespace gate::stats {

enum class Multiplicity {
  kHolm,        // family-wise error control, uniformly more powerful than Bonferroni (default)
  kBonferroni,  // p * m
  kNone,        // each test at alpha on its own (for a single declared function, or curiosity)
  // Weighted Holm (Holm 1979's weighted form): the primary tests (each function's p50) share
  // kPrimaryShare of alpha, the tails the rest, so a p50 regression competes with the other p50s
  // only. Family-wise error control, like Holm.
  kHolmPrimaryFirst,
  // Benjamini-Hochberg step-up: the false-discovery rate. When nothing changed (an A/A) every
  // rejection is false and it is the family-wise rate; with real changes more tests get through.
  kBenjaminiHochberg,
};
inline constexpr double kPrimaryShare = 0.8;

std::string_view to_string(Multiplicity m);  // "Holm", "Bonferroni", "none", "Holm, p50 first", "Benjamini-Hochberg"
// "holm", "bonferroni", "none", "p50-first", "fdr" (config `family:`); false for another word.
bool parse_multiplicity(std::string_view word, Multiplicity* out);

// Adjusted p-values, in the input order, capped at 1: reject test i at family-wise level alpha
// iff adjusted[i] < alpha. NaN inputs stay NaN and are not counted in the family. `primary`
// (same size as p, or empty: none) marks the primary tests of kHolmPrimaryFirst.
std::vector<double> adjust_p_values(const std::vector<double>& p, Multiplicity method,
                                    const std::vector<bool>& primary = {});

// Per test, the unadjusted one-sided level that agrees with the rejections at alpha: every
// rejected test's p is at or below it and every other test's p above it (Holm with r of m
// rejected: alpha / (m - r); Bonferroni alpha / m; none alpha; weighted Holm alpha w_i / (the
// weight not rejected); Benjamini-Hochberg alpha max(r, 1) / m). An interval bounded at this
// level excludes the null exactly when the test was rejected (stats/family.hpp).
std::vector<double> rejection_levels(const std::vector<double>& p, const std::vector<double>& adjusted,
                                     Multiplicity method, double alpha, const std::vector<bool>& primary = {});

}  // namespace gate::stats
