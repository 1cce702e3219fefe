// find_modes: the exact two-group split of sorted log values and the tests that make its groups
// modes; fold_per_mode: a unit's executions folded mode by mode.
#include "stats/benchmark_modes.hpp"

#include <algorithm>
#include <cmath>

#include "common/numbers.hpp"

namespace gate::stats {

ModeSplit find_modes(std::span<const double> values, double min_ratio) {
  ModeSplit out;
  std::vector<double> x;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) x.push_back(std::log(v));
  const size_t n = x.size();
  if (n < kMinValues) return out;
  std::sort(x.begin(), x.end());
  const size_t least = std::max<size_t>(kMinModeValues, static_cast<size_t>(std::ceil(kMinModeShare * static_cast<double>(n))));
  if (2 * least > n) return out;
  // Prefix sums: the within-group sum of squares of every split in one pass.
  std::vector<double> s(n + 1, 0), s2(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    s[i + 1] = s[i] + x[i];
    s2[i + 1] = s2[i] + x[i] * x[i];
  }
  auto within = [&](size_t a, size_t b) {  // sum of squares of x[a, b)
    const double k = static_cast<double>(b - a), sum = s[b] - s[a];
    return (s2[b] - s2[a]) - sum * sum / k;
  };
  size_t cut = 0;
  double best = 0;
  for (size_t i = least; i + least <= n; ++i) {
    const double ss = within(0, i) + within(i, n);
    if (cut == 0 || ss < best) {
      best = ss;
      cut = i;
    }
  }
  const double k1 = static_cast<double>(cut), k2 = static_cast<double>(n - cut);
  const double m1 = (s[cut] - s[0]) / k1, m2 = (s[n] - s[cut]) / k2;
  const double v1 = std::max(0.0, within(0, cut) / k1), v2 = std::max(0.0, within(cut, n) / k2);
  const double pooled = std::sqrt((v1 + v2) / 2);
  out.lower = static_cast<int>(cut);
  out.upper = static_cast<int>(n - cut);
  out.lower_log = m1;
  out.upper_log = m2;
  out.split = (x[cut - 1] + x[cut]) / 2;
  out.separation = pooled > 0 ? (m2 - m1) / pooled : (m2 > m1 ? INFINITY : 0);
  const double lo = m1 + (m2 - m1) / 4, hi = m2 - (m2 - m1) / 4;
  const auto valley = std::count_if(x.begin(), x.end(), [&](double v) { return v > lo && v < hi; });
  out.found = out.separation >= kMinSeparation && static_cast<double>(valley) <= kMaxValleyShare * static_cast<double>(n) &&
              m2 - m1 >= std::log(std::max(min_ratio, 1.0));
  return out;
}

ModeLabels label_modes(const std::vector<std::vector<double>>& runs, const ModeSplit& s, bool higher_is_better) {
  ModeLabels out;
  for (const auto& run : runs) {
    std::vector<int> labels;
    for (double v : run) {
      const int lower = v > 0 && mode_of(std::log(v), s) == 0;
      labels.push_back(higher_is_better ? lower : 1 - lower);
    }
    out.push_back(std::move(labels));
  }
  return out;
}

double fold_per_mode(std::span<const double> executions, std::span<const int> labels, bool higher_is_better,
                     double best_per_mode[2]) {
  best_per_mode[0] = best_per_mode[1] = kNaN;
  int count[2] = {0, 0};
  for (size_t i = 0; i < executions.size(); ++i) {
    const double v = executions[i];
    if (!(v > 0) || !std::isfinite(v)) continue;
    const int m = i < labels.size() ? labels[i] : 0;
    ++count[m];
    double& b = best_per_mode[m];
    if (std::isnan(b) || (higher_is_better ? v > b : v < b)) b = v;
  }
  const int n = count[0] + count[1];
  if (n == 0) return kNaN;
  double log_sum = 0;
  for (int m = 0; m < 2; ++m)
    if (count[m]) log_sum += count[m] * std::log(best_per_mode[m]);
  return std::exp(log_sum / n);
}

}  // namespace gate::stats
