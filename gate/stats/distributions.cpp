// Normal CDF/quantile and the Abramowitz & Stegun Beta quantile used to turn a run's histogram
// into the sampling distribution of its quantile (see bootstrap.hpp).
#include "stats/distributions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

namespace gate::stats {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }
double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::numbers::sqrt2); }

double normal_quantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  double x;
  if (p < p_low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - p_low) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley step on the exact CDF takes Acklam's 1e-9 to machine precision. In the upper half
  // work on the upper tail, where 1 - p would lose the digits that matter.
  const double e = p <= 0.5 ? normal_cdf(x) - p : (1 - p) - normal_upper_tail(x);
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  x = x - u / (1 + x * u / 2);
  return x;
}

namespace {

// lgamma(a + b) - lgamma(a). Subtracting two lgammas of ~6e6 (a t distribution with 1e6 df has
// a = 5e5) loses 1e-9 of relative accuracy; for large a, Stirling's series with the difference
// taken analytically keeps it to ~1e-15.
double log_gamma_ratio(double a, double b) {
  if (a < 10 || a + b < 10) return std::lgamma(a + b) - std::lgamma(a);
  auto stirling_tail = [](double x) {
    const double x2 = x * x;
    return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - 1.0 / (1680 * x2)) / x2) / x2) / x;
  };
  return (a - 0.5) * std::log1p(b / a) + b * std::log(a + b) - b + stirling_tail(a + b) - stirling_tail(a);
}

}  // namespace

namespace {

// I_x(a, b) given x and y = 1 - x, each computed by the caller without cancellation: with a =
// 5e5 (a t distribution with 1e6 df), a * log(x) turns x's last-bit rounding into 1e-10 of error.
double incomplete_beta_xy(double x, double y, double a, double b) {
  // log(x^a (1-x)^b / B(a, b)), with the larger parameter's lgamma taken as a difference.
  const double log_beta_inv = a >= b ? log_gamma_ratio(a, b) - std::lgamma(b) : log_gamma_ratio(b, a) - std::lgamma(a);
  const double log_x = x < 0.5 ? std::log(x) : std::log1p(-y);
  const double log_y = y < 0.5 ? std::log(y) : std::log1p(-x);
  const double log_front = log_beta_inv + a * log_x + b * log_y;
  // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry
  // I_x(a, b) = 1 - I_{1-x}(b, a) on the other side.
  const bool flip = x > (a + 1) / (a + b + 2);
  if (flip) {
    std::swap(a, b);
    std::swap(x, y);
  }
  constexpr double tiny = 1e-300, eps = 1e-15;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::abs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1) < eps) break;
  }
  const double front = std::exp(log_front) / a;
  return flip ? 1 - front * h : front * h;
}

}  // namespace

double incomplete_beta(double x, double a, double b) {
  if (std::isnan(x) || !(a > 0) || !(b > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return incomplete_beta_xy(x, 1 - x, a, b);
}

double student_t_upper_tail(double t, double nu) {
  if (std::isnan(t) || !(nu > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
  if (nu > 1e7) return normal_upper_tail(t);
  const double t2 = t * t;
  if (t2 == 0) return 0.5;
  const double tail = 0.5 * incomplete_beta_xy(nu / (nu + t2), t2 / (nu + t2), nu / 2, 0.5);  // P(T > |t|)
  return t >= 0 ? tail : 1 - tail;
}

double student_t_cdf(double t, double nu) { return student_t_upper_tail(-t, nu); }

double student_t_quantile(double p, double nu) {
  if (std::isnan(p) || p < 0 || p > 1 || !(nu > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  if (p > 0.5) return -student_t_quantile(1 - p, nu);
  if (p == 0.5) return 0;
  const double z = normal_quantile(p);
  if (nu > 1e7) return z;
  // Cornish-Fisher expansion of t in z: a good start for nu >= 3, bracketed below anyway.
  const double z3 = z * z * z, z5 = z3 * z * z;
  double t = z + (z3 + z) / (4 * nu) + (5 * z5 + 16 * z3 + 3 * z) / (96 * nu * nu);
  // Solve upper_tail(-t) = p for t < 0 by Newton steps kept inside a shrinking bracket.
  double lo = -1e300, hi = 0;
  const double log_norm = log_gamma_ratio(nu / 2, 0.5) - 0.5 * std::log(nu * std::numbers::pi);
  for (int i = 0; i < 200; ++i) {
    const double f = student_t_cdf(t, nu) - p;
    if (f > 0) hi = t; else lo = t;
    const double pdf = std::exp(log_norm - (nu + 1) / 2 * std::log1p(t * t / nu));
    double next = t - f / pdf;
    if (!(next > lo && next < hi)) next = lo > -1e300 ? (lo + hi) / 2 : 2 * t - 1;
    if (std::abs(next - t) <= 1e-13 * std::max(1.0, std::abs(t))) return next;
    t = next;
  }
  return t;
}

BetaLevel BetaLevel::at(double p) {
  // A&S 26.5.22 is stated for the upper tail: y is the normal deviate exceeded with probability p.
  const double y = -normal_quantile(p);
  return {y, (y * y - 3) / 6};
}

double beta_quantile_approx(double p, double a, double b) {
  if (!(p > 0)) return 0;
  if (!(p < 1)) return 1;
  return beta_quantile_approx(BetaLevel::at(p), a, b);
}

double beta_quantile_approx(const BetaLevel& level, double a, double b) {
  a = std::max(a, 0.5 + 1e-9);
  b = std::max(b, 0.5 + 1e-9);
  const double y = level.y;
  const double lambda = level.lambda;
  const double inv_a = 1 / (2 * a - 1);
  const double inv_b = 1 / (2 * b - 1);
  const double h = 2 / (inv_a + inv_b);
  const double w = y * std::sqrt(std::max(h + lambda, 0.0)) / h - (inv_b - inv_a) * (lambda + 5.0 / 6 - 2 / (3 * h));
  return a / (a + b * std::exp(2 * w));
}

}  // namespace gate::stats
