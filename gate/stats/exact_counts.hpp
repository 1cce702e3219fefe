// The exact test of two Poisson counts (issue 54): the sampled instrument where one side counted
// no sample at all, which no interval over per-unit values can take. Values only.
#pragma once

namespace gate::stats {

// Two sides' total samples of a function (b, h) and the calls they came from (the exposures E_b,
// E_h): the ratio of their rates per call, R = (h / E_h) / (b / E_b), tested exactly. Given
// n = b + h, the head's count is Binomial(n, pi(R)) with pi(R) = R E_h / (E_b + R E_h) whatever the
// rates' common level (the conditional test of two Poisson rates; Przyborowski and Wilenski 1940):
// a base that counted none still bounds the ratio from below, by how many the head counted.
struct ExactCounts {
  bool used = false;
  double base_count = 0, head_count = 0;
  double base_exposure = 0, head_exposure = 0;

  // P(head count >= h | R = bound): small when the ratio is surely above `bound`.
  double p_above(double bound) const;
  // P(head count <= h | R = bound): small when the ratio is surely below `bound`.
  double p_below(double bound) const;
  // The one-sided bound at `level` (sign -1: lower, +1: upper), Clopper-Pearson's for pi turned into
  // a ratio: exactly the bound past which p_above (p_below) falls under `level`. 0 / +inf at the ends.
  double bound(double level, int sign) const;
  // The point estimate with half a sample added to each side (finite when a side counted none).
  double center() const;
};

// The x with I_x(a, b) = p (a, b > 0, p in [0, 1]), by bisection on stats::incomplete_beta.
double beta_quantile(double p, double a, double b);

}  // namespace gate::stats
