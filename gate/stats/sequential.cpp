#include "stats/sequential.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "stats/distributions.hpp"

namespace gate::stats {
namespace {

constexpr double kGridStart = 0.5;  // deviates below this: p > 0.3, far from any decision
constexpr double kGridStep = 0.5;
constexpr int kGridPoints = 14;     // up to c = 7 (p ~ 1e-12); beyond, the factor at 7 is kept
constexpr double kH = 0.05;         // integration step of the walk's density (sum of unit normals)
constexpr double kTail = 8.0;       // the density is carried down to -kTail sqrt(n)
constexpr double kStepSpan = 7.0;   // one step's normal is cut at +-7 (1e-12 of its mass)

}  // namespace

SequentialLooks::SequentialLooks(int first, int last)
    : first_(std::max(1, first)), last_(last), bonferroni_(last > kMaxIntegratedLast) {
  if (looks() == 1 || bonferroni_) return;
  log_inflation_.reserve(kGridPoints);
  for (int i = 0; i < kGridPoints; ++i) {
    const double c = kGridStart + i * kGridStep;
    log_inflation_.push_back(std::log(crossing_probability(c) / normal_upper_tail(c)));
  }
}

double SequentialLooks::crossing_probability(double c) const {
  if (looks() == 1) return normal_upper_tail(c);
  if (bonferroni_) return std::min(1.0, looks() * normal_upper_tail(c));  // an upper bound
  // Density of S_n (a sum of n unit normals) on a grid, over the paths that stayed below c sqrt(m)
  // at every look m <= n so far. x_j = lo + j h.
  const double lo = -kTail * std::sqrt(static_cast<double>(last_));
  const double hi = c * std::sqrt(static_cast<double>(last_));
  const int n_points = static_cast<int>(std::ceil((hi - lo) / kH)) + 1;
  std::vector<double> f(n_points, 0.0), next(n_points, 0.0);
  const double s0 = std::sqrt(static_cast<double>(first_));
  auto bound_index = [&](int n) {  // grid points strictly below c sqrt(n) stay
    const double b = c * std::sqrt(static_cast<double>(n));
    return std::clamp(static_cast<int>(std::ceil((b - lo) / kH)), 0, n_points);
  };
  int keep = bound_index(first_);
  for (int j = 0; j < keep; ++j) {
    const double x = lo + j * kH;
    f[j] = std::exp(-0.5 * (x / s0) * (x / s0)) / (s0 * std::sqrt(2 * M_PI));
  }
  double crossed = normal_upper_tail(c);  // at the first look, exactly
  // One step of the walk: convolution with the unit normal, as weights on the grid.
  const int half = static_cast<int>(std::ceil(kStepSpan / kH));
  std::vector<double> kernel(2 * half + 1);
  for (int d = -half; d <= half; ++d) kernel[d + half] = kH * std::exp(-0.5 * (d * kH) * (d * kH)) / std::sqrt(2 * M_PI);
  for (int n = first_ + 1; n <= last_; ++n) {
    const int new_keep = bound_index(n);
    std::fill(next.begin(), next.end(), 0.0);
    for (int j = 0; j < keep; ++j) {
      if (f[j] == 0) continue;
      const int a = std::max(0, j - half), b = std::min(n_points - 1, j + half);
      for (int k = a; k <= b; ++k) next[k] += f[j] * kernel[k - j + half];
    }
    // The mass that crossed at this look: beyond the bound, summed directly (no 1 - sum, whose
    // cancellation would lose the small probabilities Holm needs); past the grid's end, the
    // normal tail of each point's step.
    double above = 0;
    for (int k = new_keep; k < n_points; ++k) above += next[k] * kH;
    for (int j = 0; j < keep; ++j)
      if (f[j] > 0) above += f[j] * kH * normal_upper_tail((n_points - 0.5 - j) * kH);
    crossed += above;
    for (int k = new_keep; k < n_points; ++k) next[k] = 0;
    f.swap(next);
    keep = new_keep;
  }
  return std::min(1.0, crossed);
}

double SequentialLooks::adjust(double p) const {
  if (looks() == 1 || !(p < 1)) return p;
  if (!(p > 0)) return p;
  if (bonferroni_) return std::min(1.0, p * looks());
  const double c = -normal_quantile(p);  // the deviate with upper tail p (not 1 - p: tiny p's digits)
  const double pos = (c - kGridStart) / kGridStep;
  double log_k;
  if (pos <= 0) {
    log_k = log_inflation_.front();
  } else if (pos >= kGridPoints - 1) {
    log_k = log_inflation_.back();
  } else {
    const int i = static_cast<int>(pos);
    const double t = pos - i;
    log_k = (1 - t) * log_inflation_[i] + t * log_inflation_[i + 1];
  }
  return std::clamp(p * std::exp(log_k), p, 1.0);
}

double SequentialLooks::per_look_level(double alpha) const {
  if (looks() == 1 || !(alpha > 0 && alpha < 1)) return alpha;
  double lo = std::log(1e-300), hi = std::log(alpha);  // adjust(exp(lo)) < alpha <= adjust(exp(hi))
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (adjust(std::exp(mid)) < alpha ? lo : hi) = mid;
  }
  return std::exp(lo);
}

const SequentialLooks& sequential_looks(int first, int last) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::unique_ptr<SequentialLooks>> cache;
  std::lock_guard lock(mutex);
  auto& slot = cache[{first, last}];
  if (!slot) slot = std::make_unique<SequentialLooks>(first, last);
  return *slot;
}

}  // namespace gate::stats
