// The few distribution functions the statistics need (normal CDF and quantile, an approximate Beta
// quantile), written out so gate needs no numerics library; checked against scipy in tests/stats.
#pragma once

namespace gate::stats {

// Standard normal CDF, and its upper tail 1 - Phi(z) computed without cancellation (p-values of
// 1e-8 must survive: Holm divides alpha by the number of tests).
double normal_cdf(double z);
double normal_upper_tail(double z);

// Phi^-1(p) for p in (0, 1); -inf at 0, +inf at 1, NaN outside. Acklam's rational approximation
// (1e-9) refined by one Halley step: within 1e-12 relative of scipy down to p = 1e-300.
double normal_quantile(double p);

// Regularized incomplete beta I_x(a, b) (continued fraction, Numerical Recipes' betacf with
// modified Lentz). Checked against scipy to 1e-10 relative; a t distribution's tails (a = nu/2,
// b = 1/2, nu up to a few hundred for Welch's df) come out to ~1e-13.
double incomplete_beta(double x, double a, double b);

// Student t with nu > 0 degrees of freedom (nu need not be an integer: Welch's df is not).
// The upper tail is computed directly (no 1 - cdf), so p-values of 1e-12 keep their digits.
double student_t_cdf(double t, double nu);
double student_t_upper_tail(double t, double nu);
// t such that cdf(t) = p, p in (0, 1): Cornish-Fisher start, then Newton/bisection to ~1e-12.
double student_t_quantile(double p, double nu);

// The p-quantile of Beta(a, b) by Abramowitz & Stegun 26.5.22 (a Wilson-Hilferty style
// transformation). Within 1% of the distribution's standard deviation when a, b >= 5, which is
// all the within-run bootstrap asks of it (it needs >= 10 calls beyond the quantile of interest).
// a, b <= 0.5 are clamped to just above 0.5, where the formula is still defined.
double beta_quantile_approx(double p, double a, double b);

// The same with the level's normal deviate computed once: the bootstrap evaluates the Beta
// quantile at the same fixed levels for every run of every function.
struct BetaLevel {
  double y = 0;       // normal deviate exceeded with probability p
  double lambda = 0;  // (y^2 - 3) / 6
  static BetaLevel at(double p);
};
double beta_quantile_approx(const BetaLevel& level, double a, double b);

}  // namespace gate::stats
