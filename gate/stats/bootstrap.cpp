// Hierarchical bootstrap of a head/base ratio: per-run strata from histograms (order statistics of
// the run's calls), resampling of runs and strata, and the percentile interval of the ratio.
#include "stats/bootstrap.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>

#include "common/numbers.hpp"
#include "stats/distributions.hpp"
#include "stats/rng.hpp"

namespace gate::stats {
namespace {

// Latencies below 1 ns only come from bucket 0 ([0, 1) ns); flooring them keeps log() finite and
// changes nothing measurable (a traced Go call costs hundreds of ns).
constexpr double kFloorNs = 1.0;

double log_ns(double ns) { return std::log(std::max(ns, kFloorNs)); }

// Levels of kWithinRunStrata equiprobable strata of (0, 1): the midpoints, moved outward so
// that the standard normal deviates of the levels have variance 1 (the midpoints' have 0.961 for
// 32 strata). For a near-normal order statistic the strata then carry its whole variance.
double stratum_level(uint32_t i) {
  static const double stretch = [] {
    double s = 0;
    for (uint32_t j = 0; j < kWithinRunStrata; ++j) {
      const double z = normal_quantile((j + 0.5) / kWithinRunStrata);
      s += z * z / kWithinRunStrata;
    }
    return 1 / std::sqrt(s);
  }();
  return normal_cdf(stretch * normal_quantile((i + 0.5) / kWithinRunStrata));
}

const std::array<BetaLevel, kWithinRunStrata>& beta_levels() {
  static const auto levels = [] {
    std::array<BetaLevel, kWithinRunStrata> l{};
    for (uint32_t i = 0; i < kWithinRunStrata; ++i) l[i] = BetaLevel::at(stratum_level(i));
    return l;
  }();
  return levels;
}

const std::array<double, kWithinRunStrata>& normal_levels() {
  static const auto levels = [] {
    std::array<double, kWithinRunStrata> z{};
    for (uint32_t i = 0; i < kWithinRunStrata; ++i) z[i] = normal_quantile(stratum_level(i));
    return z;
  }();
  return levels;
}

// One bootstrap replicate of one side: draw runs with replacement and a stratum within each, and
// average. A 64-bit draw serves two picks (32 bits each: 27 for the run by multiply-shift, bias
// below n / 2^27, and 5 for the stratum): the random numbers were a third of the time.
double replicate_side(const double* strata, uint32_t n, Xoshiro256& rng) {
  static_assert(kWithinRunStrata == 32, "5 bits pick the stratum");
  double sum = 0;
  auto pick = [&](uint32_t bits) {
    const uint32_t run = static_cast<uint32_t>((static_cast<uint64_t>(bits >> 5) * n) >> 27);
    return strata[run * kWithinRunStrata + (bits & 31u)];
  };
  uint32_t i = 0;
  for (; i + 1 < n; i += 2) {
    const uint64_t bits = rng();
    sum += pick(static_cast<uint32_t>(bits >> 32));
    sum += pick(static_cast<uint32_t>(bits));
  }
  if (i < n) sum += pick(static_cast<uint32_t>(rng() >> 32));
  return sum / n;
}

// The p_lo and p_hi percentiles (p_lo < 0.5 < p_hi) of v, by linear interpolation between order
// statistics (numpy's default). Only the few values at each end matter (the 36th of 2000 for a
// t interval with 18 df), so one pass keeps the smallest and the largest few in two heaps:
// ~3x cheaper than two nth_element calls, which were 8% of a comparison.
std::pair<double, double> percentiles(const std::vector<double>& v, double p_lo, double p_hi) {
  const size_t n = v.size();
  const double pos_lo = p_lo * static_cast<double>(n - 1), pos_hi = p_hi * static_cast<double>(n - 1);
  const size_t k_lo = static_cast<size_t>(std::floor(pos_lo));  // v_(k_lo), v_(k_lo + 1) needed
  const size_t k_hi = static_cast<size_t>(std::floor(pos_hi));  // v_(k_hi), v_(k_hi + 1) needed
  const size_t keep_lo = std::min(n, k_lo + 2), keep_hi = std::min(n, n - k_hi + 1);
  std::vector<double> low, high;  // max-heap of the smallest, min-heap of the largest
  low.reserve(keep_lo + 1);
  high.reserve(keep_hi + 1);
  for (double x : v) {
    if (low.size() < keep_lo) {
      low.push_back(x);
      std::push_heap(low.begin(), low.end());
    } else if (x < low.front()) {
      std::pop_heap(low.begin(), low.end());
      low.back() = x;
      std::push_heap(low.begin(), low.end());
    }
    if (high.size() < keep_hi) {
      high.push_back(x);
      std::push_heap(high.begin(), high.end(), std::greater<>());
    } else if (x > high.front()) {
      std::pop_heap(high.begin(), high.end(), std::greater<>());
      high.back() = x;
      std::push_heap(high.begin(), high.end(), std::greater<>());
    }
  }
  std::sort(low.begin(), low.end());                     // low[i] = v_(i)
  std::sort(high.begin(), high.end(), std::greater<>());  // high[i] = v_(n-1-i)
  auto order_stat = [&](size_t k) { return k < low.size() ? low[k] : high[n - 1 - k]; };
  auto interpolate = [&](double pos, size_t k) {
    const double a = order_stat(k);
    return k + 1 < n ? a + (pos - static_cast<double>(k)) * (order_stat(k + 1) - a) : a;
  };
  return {interpolate(pos_lo, k_lo), interpolate(pos_hi, k_hi)};
}

// One side's per-run values seen from their median: the absolute deviations, and the typical
// within-run sd (from the strata).
struct Deviations {
  double median = 0;
  std::vector<double> abs_dev;
  double within_sd = 0;
};

Deviations deviations_of(const RunSamples& side) {
  Deviations d;
  const size_t n = side.runs();
  if (n == 0) return d;
  std::vector<double> v(n), within(n);
  for (size_t i = 0; i < n; ++i) v[i] = side.point_log_ns(i);
  d.median = median(v);
  for (size_t i = 0; i < n; ++i) {
    d.abs_dev.push_back(std::abs(v[i] - d.median));
    const auto s = side.strata_log_ns(i);
    double mu = 0, var = 0;
    for (double x : s) mu += x / kWithinRunStrata;
    for (double x : s) var += (x - mu) * (x - mu) / kWithinRunStrata;
    within[i] = std::sqrt(var);
  }
  d.within_sd = median(within);
  return d;
}

// 1.4826 * MAD estimates a normal's sd; when more than half the deviations are 0 (identical
// runs), 1.2533 * the mean absolute deviation does.
double robust_sd(const std::vector<double>& abs_dev) {
  if (abs_dev.empty()) return 0;
  const double mad = 1.4826 * median(abs_dev);
  if (mad > 0) return mad;
  double mean = 0;
  for (double d : abs_dev) mean += d / static_cast<double>(abs_dev.size());
  return 1.2533 * mean;
}

// One side, ready to resample: clipped strata, its estimate, and how to rescale its replicates.
struct PreparedSide {
  std::vector<double> strata;  // clipped to the winsorizing bounds
  uint32_t n = 0;
  double estimate = 0;         // winsorized mean of log per-run values
  double scale = 0;            // replicate deviations from `estimate` are multiplied by this
  double variance = 0;         // of the estimate: unbiased between-run variance / n
};

PreparedSide prepare(const RunSamples& s, const ClipBounds& b) {
  PreparedSide p;
  p.n = static_cast<uint32_t>(s.runs());
  p.estimate = winsorized_log_mean(s, b);
  p.strata = s.all_strata();
  for (double& x : p.strata) x = std::clamp(x, b.low, b.high);
  // Plug-in variance of the runs' (clipped) values, and the mean within-run variance of the
  // strata: one pick of the two-level resampling has variance between + within.
  double between = 0, within = 0;
  for (uint32_t i = 0; i < p.n; ++i) {
    const double d = std::clamp(s.point_log_ns(i), b.low, b.high) - p.estimate;
    between += d * d / p.n;
    const double* row = p.strata.data() + static_cast<size_t>(i) * kWithinRunStrata;
    double mu = 0, var = 0;
    for (uint32_t j = 0; j < kWithinRunStrata; ++j) mu += row[j] / kWithinRunStrata;
    for (uint32_t j = 0; j < kWithinRunStrata; ++j) var += (row[j] - mu) * (row[j] - mu) / kWithinRunStrata;
    within += var / p.n;
  }
  // The runs' values vary at least as much as their own sampling noise says they must; when they
  // agree more closely than that (few runs, by chance), trust the sampling noise.
  const double target = std::max(p.n > 1 ? between * p.n / (p.n - 1) : 0.0, within);
  p.scale = between + within > 0 ? std::sqrt(target / (between + within)) : 0.0;
  p.variance = target / p.n;
  return p;
}

double welch_df(const PreparedSide& b, const PreparedSide& h) {
  const double num = (b.variance + h.variance) * (b.variance + h.variance);
  double den = 0;
  if (b.n > 1) den += b.variance * b.variance / (b.n - 1);
  if (h.n > 1) den += h.variance * h.variance / (h.n - 1);
  if (!(den > 0)) return std::max(1.0, static_cast<double>(b.n + h.n) - 2);
  return std::max(1.0, num / den);
}

}  // namespace

void RunSamples::add(double point_ns, std::span<const double> strata_ns, size_t run_id, double log_offset) {
  points_.push_back(log_ns(point_ns) - log_offset);
  ids_.push_back(run_id);
  offsets_.push_back(log_offset);
  for (double v : strata_ns) strata_.push_back(log_ns(v) - log_offset);
}

void RunSamples::add_quantile_run(HistogramCursor& h, double q, size_t run_id, double log_offset) {
  const double n1 = static_cast<double>(h.count()) + 1;
  // Beta(q(n+1), (1-q)(n+1)): its mean is exactly q, so the strata are centred on the point
  // estimate G^-1(q) rather than on the k-th order statistic's slightly different rank.
  const auto& beta = beta_levels();
  std::array<double, kWithinRunStrata> values{};
  double point = std::numeric_limits<double>::quiet_NaN();
  double level = 0;
  for (uint32_t i = 0; i < kWithinRunStrata; ++i) {
    // The approximation is monotone in the level; max() guards the cursor's forward walk anyway.
    level = std::max(level, beta_quantile_approx(beta[i], q * n1, (1 - q) * n1));
    if (std::isnan(point) && level >= q) point = h.at(q);  // in ascending order with the strata
    values[i] = h.at(level);
  }
  if (std::isnan(point)) point = h.at(q);
  add(point, values, run_id, log_offset);
}

void RunSamples::add_mean_run(const FunctionRun& f, size_t run_id, double log_offset) {
  const auto& h = f.histogram;
  const double n = static_cast<double>(h.count());
  const double mean = f.calls && f.sum_ns ? f.mean_ns() : h.approx_mean();
  // Variance of the calls from the histogram: bucket midpoints plus the within-bucket spread of a
  // uniform (width^2 / 12).
  double var = 0;
  const double hmean = h.approx_mean();
  for (const auto& [b, c] : h.buckets()) {
    const double w = static_cast<double>(LatencyHistogram::width_ns(b));
    const double mid = static_cast<double>(LatencyHistogram::lower_ns(b)) + w / 2;
    var += static_cast<double>(c) * ((mid - hmean) * (mid - hmean) + w * w / 12);
  }
  var = n > 0 ? var / n : 0;
  const double se = n > 0 ? std::sqrt(var / n) : 0;
  std::array<double, kWithinRunStrata> values{};
  const auto& z = normal_levels();
  for (uint32_t i = 0; i < kWithinRunStrata; ++i) values[i] = mean + z[i] * se;
  add(mean, values, run_id, log_offset);
}

void RunSamples::add_window_mean_run(const LatencyHistogram& h, double lo, double hi, size_t run_id,
                                     double log_offset) {
  const double n = static_cast<double>(h.count());
  // The histogram's calls are spread evenly over each bucket, so the calls between levels a and b
  // of a bucket covering levels [c0, c1] are uniform on a sub-interval of it: first and second
  // moments in closed form. Outside [lo, hi] the calls are winsorized to the window's ends.
  double m1 = 0, m2 = 0, seen = 0;
  for (const auto& [b, c] : h.buckets()) {
    const double c0 = seen / n, c1 = (seen + static_cast<double>(c)) / n;
    seen += static_cast<double>(c);
    const double a = std::max(c0, lo), e = std::min(c1, hi);
    if (e <= a) continue;
    const double low = static_cast<double>(LatencyHistogram::lower_ns(b));
    const double w = static_cast<double>(LatencyHistogram::width_ns(b));
    const double x0 = low + w * (a - c0) / (c1 - c0), x1 = low + w * (e - c0) / (c1 - c0);
    m1 += (e - a) * (x0 + x1) / 2;
    m2 += (e - a) * (x0 * x0 + x0 * x1 + x1 * x1) / 3;
  }
  const double mean = m1 / (hi - lo);
  const double xlo = h.quantile(lo), xhi = h.quantile(hi);
  const double wm1 = m1 + lo * xlo + (1 - hi) * xhi, wm2 = m2 + lo * xlo * xlo + (1 - hi) * xhi * xhi;
  const double wvar = std::max(0.0, wm2 - wm1 * wm1);
  const double se = n > 0 ? std::sqrt(wvar) / ((hi - lo) * std::sqrt(n)) : 0;
  std::array<double, kWithinRunStrata> values{};
  const auto& z = normal_levels();
  for (uint32_t i = 0; i < kWithinRunStrata; ++i) values[i] = mean + z[i] * se;
  add(mean, values, run_id, log_offset);
}

void RunSamples::add_point_run(double ns, size_t run_id, double log_offset) {
  std::array<double, kWithinRunStrata> values{};
  values.fill(ns);
  add(ns, values, run_id, log_offset);
}

void RunSamples::add_count_run(double ns, uint64_t count, size_t run_id, double log_offset) {
  if (count == 0) return add_point_run(ns, run_id, log_offset);
  const double log_sd = 1 / std::sqrt(static_cast<double>(count));
  std::array<double, kWithinRunStrata> values{};
  const auto& z = normal_levels();
  for (uint32_t i = 0; i < kWithinRunStrata; ++i) values[i] = ns * std::exp(z[i] * log_sd);
  add(ns, values, run_id, log_offset);
}

std::pair<ClipBounds, ClipBounds> winsorizing_bounds(const RunSamples& base, const RunSamples& head,
                                                     double outlier_sigmas) {
  const Deviations b = deviations_of(base), h = deviations_of(head);
  std::vector<double> pooled = b.abs_dev;
  pooled.insert(pooled.end(), h.abs_dev.begin(), h.abs_dev.end());
  const double pooled_sd = robust_sd(pooled);
  auto bounds = [&](const Deviations& d) {
    const double sd = std::max({robust_sd(d.abs_dev), pooled_sd, d.within_sd});
    return ClipBounds{d.median - outlier_sigmas * sd, d.median + outlier_sigmas * sd};
  };
  return {bounds(b), bounds(h)};
}

double winsorized_log_mean(const RunSamples& side, const ClipBounds& b) {
  if (side.runs() == 0) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (size_t i = 0; i < side.runs(); ++i) sum += std::clamp(side.point_log_ns(i), b.low, b.high);
  return sum / static_cast<double>(side.runs());
}

// As LatencyHistogram::quantile: the first bucket whose cumulative count reaches the rank (or the
// last bucket), interpolated inside. The running sum adds the same counts in the same order, so
// the result is bit-identical.
double HistogramCursor::at(double level) {
  const auto& buckets = h_->buckets();
  if (buckets.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double rank = std::clamp(level, 0.0, 1.0) * static_cast<double>(h_->count());
  if (bucket_ > 0 && rank <= seen_) {  // behind the walk: start over
    bucket_ = 0;
    seen_ = 0;
  }
  const size_t last = buckets.size() - 1;
  while (bucket_ < last && rank > seen_ + static_cast<double>(buckets[bucket_].second)) {
    seen_ += static_cast<double>(buckets[bucket_].second);
    ++bucket_;
  }
  const auto [b, n] = buckets[bucket_];
  const double frac = n ? std::clamp((rank - seen_) / static_cast<double>(n), 0.0, 1.0) : 0.0;
  return static_cast<double>(LatencyHistogram::lower_ns(b)) + frac * static_cast<double>(LatencyHistogram::width_ns(b));
}

double RatioInterval::p_above(double bound) const {
  const double d = log_center - std::log(bound);
  if (log_scale > 0) return student_t_upper_tail(d / log_scale, df);
  return d > 0 ? 0.0 : 1.0;
}

double RatioInterval::p_below(double bound) const {
  const double d = log_center - std::log(bound);
  if (log_scale > 0) return student_t_cdf(d / log_scale, df);
  return d < 0 ? 0.0 : 1.0;
}

RatioInterval bootstrap_ratio(const RunSamples& base, const RunSamples& head, const BootstrapOptions& o) {
  RatioInterval r;
  const auto [base_bounds, head_bounds] = winsorizing_bounds(base, head, o.outlier_sigmas);
  const PreparedSide b = prepare(base, base_bounds);
  const PreparedSide h = prepare(head, head_bounds);
  r.base_ns = std::exp(b.estimate);
  r.head_ns = std::exp(h.estimate);
  r.ratio = std::exp(h.estimate - b.estimate);
  r.df = welch_df(b, h);

  std::vector<double> diffs(static_cast<size_t>(std::max(o.resamples, 1)));
  Xoshiro256 rng(o.seed);
  for (double& d : diffs) {
    const double rb = b.estimate + b.scale * (replicate_side(b.strata.data(), b.n, rng) - b.estimate);
    const double rh = h.estimate + h.scale * (replicate_side(h.strata.data(), h.n, rng) - h.estimate);
    d = rh - rb;
  }
  // The percentile levels a t interval with r.df degrees of freedom would have.
  const double alpha = 1 - o.confidence;
  const double t_crit = student_t_quantile(1 - alpha / 2, r.df);
  const double level = normal_cdf(-t_crit);
  const auto [lo, hi] = percentiles(diffs, level, 1 - level);
  r.ci_low = std::exp(lo);
  r.ci_high = std::exp(hi);
  r.log_center = (lo + hi) / 2;
  r.log_scale = (hi - lo) / (2 * t_crit);
  return r;
}

RatioInterval ratio_over_runs(const RunSamples& base, const RunSamples& head, const BootstrapOptions& o,
                              bool paired, int* units) {
  if (paired) return paired_ratio(base, head, o, units);
  *units = static_cast<int>(std::min(base.runs(), head.runs()));
  return bootstrap_ratio(base, head, o);
}

RatioInterval paired_ratio(const RunSamples& base, const RunSamples& head, const BootstrapOptions& o, int* pairs) {
  RatioInterval r;
  std::vector<double> d, s, b_points, h_points;
  double within = 0;  // mean over pairs of the two runs' within-run variances
  auto within_var = [](std::span<const double> s) {
    double mu = 0, var = 0;
    for (double x : s) mu += x / kWithinRunStrata;
    for (double x : s) var += (x - mu) * (x - mu) / kWithinRunStrata;
    return var;
  };
  for (size_t i = 0, j = 0; i < base.runs() && j < head.runs();) {
    if (base.run_id(i) < head.run_id(j)) { ++i; continue; }
    if (head.run_id(j) < base.run_id(i)) { ++j; continue; }
    d.push_back(head.point_log_ns(j) - base.point_log_ns(i));
    s.push_back(head.log_offset(j) - base.log_offset(i));
    b_points.push_back(base.point_log_ns(i));
    h_points.push_back(head.point_log_ns(j));
    within += within_var(base.strata_log_ns(i)) + within_var(head.strata_log_ns(j));
    ++i;
    ++j;
  }
  const size_t n = d.size();
  *pairs = static_cast<int>(n);
  if (n < 2) return r;
  within /= static_cast<double>(n);
  // Fitted elasticity: d (normalized with power 1) + s is the raw log ratio; take beta * s out.
  double s_mean = 0, sxx = 0;
  for (double x : s) s_mean += x / static_cast<double>(n);
  for (double x : s) sxx += (x - s_mean) * (x - s_mean);
  const bool fit = o.fit_elasticity && n >= 4 && sxx > 1e-12;
  if (fit) {
    double raw_mean = 0, sxy = 0;
    for (size_t k = 0; k < n; ++k) raw_mean += (d[k] + s[k]) / static_cast<double>(n);
    for (size_t k = 0; k < n; ++k) sxy += (s[k] - s_mean) * (d[k] + s[k] - raw_mean);
    const double beta = sxy / sxx;
    for (size_t k = 0; k < n; ++k) d[k] = d[k] + s[k] - beta * s[k];
    r.elasticity = beta;
  }
  // Winsorize the differences around their median at outlier_sigmas robust SDs (floored by the
  // within-run sd, as winsorizing_bounds does): one pair caught by a GC storm moves little.
  std::vector<double> sorted = d;
  const double med = median(sorted);
  std::vector<double> abs_dev;
  for (double x : d) abs_dev.push_back(std::abs(x - med));
  const double sd = std::max(robust_sd(abs_dev), std::sqrt(within));
  double mean = 0;
  for (double& x : d) {
    x = std::clamp(x, med - o.outlier_sigmas * sd, med + o.outlier_sigmas * sd);
    mean += x / static_cast<double>(n);
  }
  const double dof = static_cast<double>(fit ? n - 2 : n - 1);
  double var = 0;
  for (double x : d) var += (x - mean) * (x - mean) / dof;
  const double leverage = fit ? 1.0 / static_cast<double>(n) + s_mean * s_mean / sxx : 1.0 / static_cast<double>(n);
  const double se = std::sqrt(std::max(var, within) * leverage);
  double b_mean = 0, h_mean = 0;
  for (size_t k = 0; k < n; ++k) {
    b_mean += b_points[k] / static_cast<double>(n);
    h_mean += h_points[k] / static_cast<double>(n);
  }
  r.df = dof;
  r.base_ns = std::exp(b_mean);
  r.head_ns = std::exp(b_mean + mean);
  r.ratio = std::exp(mean);
  const double t_crit = student_t_quantile(1 - (1 - o.confidence) / 2, r.df);
  r.ci_low = std::exp(mean - t_crit * se);
  r.ci_high = std::exp(mean + t_crit * se);
  r.log_center = mean;
  r.log_scale = se;
  return r;
}

}  // namespace gate::stats
