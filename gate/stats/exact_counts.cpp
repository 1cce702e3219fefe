// ExactCounts: the conditional binomial test of two Poisson counts and its Clopper-Pearson bounds.
#include "stats/exact_counts.hpp"

#include <cmath>
#include <limits>

#include "stats/distributions.hpp"

namespace gate::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The head's share of the samples at ratio R.
double share_at(const ExactCounts& e, double r) {
  return r * e.head_exposure / (e.base_exposure + r * e.head_exposure);
}

// The ratio whose share is pi.
double ratio_of(const ExactCounts& e, double pi) {
  if (pi <= 0) return 0;
  if (pi >= 1) return kInf;
  return pi / (1 - pi) * e.base_exposure / e.head_exposure;
}

}  // namespace

double beta_quantile(double p, double a, double b) {
  if (!(p > 0)) return 0;
  if (!(p < 1)) return 1;
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    (incomplete_beta(mid, a, b) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double ExactCounts::p_above(double bound) const {
  const double n = base_count + head_count, h = head_count;
  if (h <= 0) return 1;
  // P(X >= h) for X ~ Bin(n, pi) is I_pi(h, n - h + 1).
  return incomplete_beta(share_at(*this, bound), h, n - h + 1);
}

double ExactCounts::p_below(double bound) const {
  const double n = base_count + head_count, h = head_count;
  if (h >= n) return 1;
  // P(X <= h) = I_{1 - pi}(n - h, h + 1).
  return incomplete_beta(1 - share_at(*this, bound), n - h, h + 1);
}

double ExactCounts::bound(double level, int sign) const {
  const double n = base_count + head_count, h = head_count;
  if (sign < 0) return h <= 0 ? 0 : ratio_of(*this, beta_quantile(level, h, n - h + 1));
  return h >= n ? kInf : ratio_of(*this, beta_quantile(1 - level, h + 1, n - h));
}

double ExactCounts::center() const {
  return ((head_count + 0.5) / head_exposure) / ((base_count + 0.5) / base_exposure);
}

}  // namespace gate::stats
