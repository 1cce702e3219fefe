// E-divisive means with a permutation test, computed incrementally: O(n^2) per scan of a segment.
#include "history/changepoints.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "common/numbers.hpp"

namespace gate::history {
namespace {

struct Split {
  size_t tau = 0;  // first index of the right part
  double q = -std::numeric_limits<double>::infinity();
};

// The best split of x[s, e) with at least L points a side, by the energy statistic
//   Q = m k / (m + k) * (2/(m k) sum|X-Y| - sum_{i<j}|X_i-X_j| / C(m,2) - sum_{i<j}|Y_i-Y_j| / C(k,2))
// (exponent 1 on the distance). Moving one point from right to left updates the three sums with
// its distances to each side: O(n^2) for all splits.
Split best_split(const std::vector<double>& x, size_t s, size_t e, size_t L) {
  Split best;
  const size_t n = e - s;
  if (n < 2 * L) return best;
  double within_right = 0;
  for (size_t i = s; i < e; ++i)
    for (size_t j = i + 1; j < e; ++j) within_right += std::fabs(x[i] - x[j]);
  double within_left = 0, cross = 0;
  for (size_t tau = s; tau < e; ++tau) {
    const double m = static_cast<double>(tau - s), k = static_cast<double>(e - tau);
    if (tau - s >= L && e - tau >= L) {
      const double e_stat = 2 * cross / (m * k) - within_left / (m * (m - 1) / 2) - within_right / (k * (k - 1) / 2);
      const double q = m * k / (m + k) * e_stat;
      if (q > best.q) best = {tau, q};
    }
    double to_left = 0, to_right = 0;  // point tau's distances to the left part and the rest of the right
    for (size_t i = s; i < tau; ++i) to_left += std::fabs(x[i] - x[tau]);
    for (size_t j = tau + 1; j < e; ++j) to_right += std::fabs(x[tau] - x[j]);
    within_left += to_left;
    within_right -= to_right;
    cross += to_right - to_left;
  }
  return best;
}

// A portable Fisher-Yates (std::shuffle's order differs between standard libraries).
void shuffle(std::vector<double>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(rng() % i);
    std::swap(v[i - 1], v[j]);
  }
}

// p-value of a split of x[s, e) with statistic q: the share of permutations of the segment whose
// best split is at least as strong (with the observed one counted, so never 0).
double permutation_p(const std::vector<double>& x, size_t s, size_t e, double q, const ChangePointParams& p,
                     std::mt19937_64& rng) {
  std::vector<double> seg(x.begin() + s, x.begin() + e);
  int as_strong = 0;
  for (int r = 0; r < p.permutations; ++r) {
    shuffle(seg, rng);
    if (best_split(seg, 0, seg.size(), p.min_segment).q >= q) ++as_strong;
  }
  return (1.0 + as_strong) / (1.0 + p.permutations);
}

}  // namespace

double median_of(const std::vector<double>& values, size_t begin, size_t end) {
  if (end <= begin) return kNaN;
  return median(std::vector<double>(values.begin() + begin, values.begin() + end));
}

std::vector<ChangePoint> e_divisive(const std::vector<double>& values, const ChangePointParams& p) {
  std::vector<double> x;
  x.reserve(values.size());
  for (double v : values) x.push_back(v > 0 ? std::log(v) : std::log(1e-9));
  const size_t L = static_cast<size_t>(std::max(2, p.min_segment));
  std::mt19937_64 rng(p.seed);
  std::vector<ChangePoint> found;  // unordered while searching
  std::vector<size_t> bounds = {0, x.size()};
  // Binary segmentation: test the strongest split over all current segments; stop at the first
  // that is not significant (the others are weaker).
  for (;;) {
    Split best;
    size_t seg_s = 0, seg_e = 0;
    for (size_t b = 0; b + 1 < bounds.size(); ++b) {
      const Split sp = best_split(x, bounds[b], bounds[b + 1], L);
      if (sp.q > best.q) {
        best = sp;
        seg_s = bounds[b];
        seg_e = bounds[b + 1];
      }
    }
    if (!std::isfinite(best.q) || best.q <= 0) break;
    const double pv = permutation_p(x, seg_s, seg_e, best.q, p, rng);
    if (pv > p.alpha) break;
    ChangePoint c;
    c.index = best.tau;
    c.p_value = pv;
    c.statistic = best.q;
    found.push_back(c);
    bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), best.tau), best.tau);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  // Shifts between neighbouring segments; the weakest step under min_shift is merged away, one at a
  // time, since removing it changes its neighbours' segments.
  for (;;) {
    size_t weakest = found.size();
    double weakest_log = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < found.size(); ++i) {
      const size_t s = i == 0 ? 0 : found[i - 1].index;
      const size_t e = i + 1 < found.size() ? found[i + 1].index : values.size();
      found[i].before = median_of(values, s, found[i].index);
      found[i].after = median_of(values, found[i].index, e);
      found[i].shift = found[i].after / found[i].before;
      const double mag = std::fabs(std::log(found[i].shift));
      if (mag < std::log1p(p.min_shift) && mag < weakest_log) {
        weakest = i;
        weakest_log = mag;
      }
    }
    if (weakest == found.size()) break;
    found.erase(found.begin() + static_cast<long>(weakest));
  }
  for (auto& c : found) c.provisional = values.size() - c.index < static_cast<size_t>(p.confirm_points);
  return found;
}

}  // namespace gate::history
