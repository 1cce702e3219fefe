// Deciding a family of tests together: each test's one-sided p-values made sequential for the
// looks of measure-until-decided, adjusted for the other tests (Holm by default), then each test's
// verdict and the interval that decided it. Pure logic, no I/O.
#pragma once

#include <vector>

#include "stats/compare.hpp"

namespace gate::stats {

// Every test in `tests` holds its interval (fill_interval / compare's estimate). Sets
// p_regression_own, p_*_adjusted, ci_low/ci_high and their levels, the verdict and its reason.
//
// The interval shown is the one that decided. Under Holm, when r of a family's m tests are
// rejected, every test of that family is bounded at the one-sided level alpha / (m - r) (alpha
// when r = m): a rejected test's p is below it (Holm rejected the k-th smallest at
// alpha / (m - k + 1) <= alpha / (m - r)) and every other test's p is above it (Holm stopped at
// the (r + 1)-th, whose p exceeded alpha / (m - r), and the rest are larger). So a regression's
// lower bound lies past its threshold and no other test's does: a reader never sees an interval
// wholly past the threshold beside "inconclusive". Bonferroni: alpha / m; no correction: alpha.
// With several looks the level is the per-look one whose sequential p is that level.
// Regressions and improvements are two families (the lower and the upper bound).
void decide_family(const std::vector<QuantileComparison*>& tests, const CompareOptions& o);

// One test decided on its own (its p_*_adjusted already set): the untested common shift.
void decide_test(QuantileComparison& qc, const CompareOptions& o, int tests);

}  // namespace gate::stats
