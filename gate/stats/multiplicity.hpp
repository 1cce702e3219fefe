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
};

std::string_view to_string(Multiplicity m);  // "Holm", "Bonferroni", "none"

// Adjusted p-values, in the input order, capped at 1: reject test i at family-wise level alpha
// iff adjusted[i] < alpha. NaN inputs stay NaN and are not counted in the family.
std::vector<double> adjust_p_values(const std::vector<double>& p, Multiplicity method);

}  // namespace gate::stats
