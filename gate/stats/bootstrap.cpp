// Hierarchical bootstrap of a head/base ratio: per-run strata from histograms (order statistics of
// the run's calls), resampling of runs and strata, and the percentile interval of the ratio.
#include "stats/bootstrap.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

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

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Linear interpolation between order statistics (numpy's default), using selection, not a sort.
double percentile(std::vector<double>& v, double p) {
  const double pos = p * static_cast<double>(v.size() - 1);
  const size_t k = static_cast<size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  const double lo = v[k];
  if (k + 1 >= v.size()) return lo;
  const double hi = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(k) + 1, v.end());
  return lo + (pos - static_cast<double>(k)) * (hi - lo);
}

}  // namespace

void RunSamples::add(double point_ns, std::span<const double> strata_ns) {
  points_.push_back(log_ns(point_ns));
  for (double v : strata_ns) strata_.push_back(log_ns(v));
}

void RunSamples::add_quantile_run(const CumulativeHistogram& h, double q) {
  const double n1 = static_cast<double>(h.count()) + 1;
  // Beta(q(n+1), (1-q)(n+1)): its mean is exactly q, so the strata are centred on the point
  // estimate G^-1(q) rather than on the k-th order statistic's slightly different rank.
  std::array<double, kWithinRunStrata + 1> levels{};
  const auto& beta = beta_levels();
  for (uint32_t i = 0; i < kWithinRunStrata; ++i) levels[i] = beta_quantile_approx(beta[i], q * n1, (1 - q) * n1);
  // The approximation is monotone in the level, but guard the walk's precondition anyway.
  for (uint32_t i = 1; i < kWithinRunStrata; ++i) levels[i] = std::max(levels[i], levels[i - 1]);
  std::array<double, kWithinRunStrata + 1> values{};
  h.quantiles(std::span(levels).first(kWithinRunStrata), std::span(values).first(kWithinRunStrata));
  add(h.quantile(q), std::span(values).first(kWithinRunStrata));
}

void RunSamples::add_mean_run(const FunctionRun& f) {
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
  add(mean, values);
}

void RunSamples::add_point_run(double ns) {
  std::array<double, kWithinRunStrata> values{};
  values.fill(ns);
  add(ns, values);
}

ClipBounds winsorizing_bounds(const RunSamples& side, double outlier_sigmas) {
  const size_t n = side.runs();
  if (n == 0) return {};
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = side.point_log_ns(i);
  const double m = median_of(v);
  std::vector<double> dev(n), within(n);
  double mean_abs = 0;
  for (size_t i = 0; i < n; ++i) {
    dev[i] = std::abs(v[i] - m);
    mean_abs += dev[i] / static_cast<double>(n);
    const auto s = side.strata_log_ns(i);
    double mu = 0, var = 0;
    for (double x : s) mu += x / kWithinRunStrata;
    for (double x : s) var += (x - mu) * (x - mu) / kWithinRunStrata;
    within[i] = std::sqrt(var);
  }
  // 1.4826 * MAD and 1.2533 * mean absolute deviation both estimate a normal's sd.
  double spread = 1.4826 * median_of(dev);
  if (spread == 0) spread = 1.2533 * mean_abs;
  spread = std::max(spread, median_of(within));
  return {m - outlier_sigmas * spread, m + outlier_sigmas * spread};
}

double winsorized_log_mean(const RunSamples& side, const ClipBounds& b) {
  if (side.runs() == 0) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (size_t i = 0; i < side.runs(); ++i) sum += std::clamp(side.point_log_ns(i), b.low, b.high);
  return sum / static_cast<double>(side.runs());
}

CumulativeHistogram::CumulativeHistogram(const LatencyHistogram& h) : h_(&h) {
  cumulative_.reserve(h.buckets().size());
  double seen = 0;
  for (const auto& [b, n] : h.buckets()) cumulative_.push_back(seen += static_cast<double>(n));
}

// LatencyHistogram::quantile walks to the first bucket whose cumulative count reaches the rank
// (or the last bucket) and interpolates inside it; so does this, by binary search for the first
// level and a short walk from there for the rest (the strata of one quantile span few buckets).
void CumulativeHistogram::quantiles(std::span<const double> levels, std::span<double> out) const {
  const auto& buckets = h_->buckets();
  if (h_->count() == 0) {
    std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const double count = static_cast<double>(h_->count());
  const size_t last = buckets.size() - 1;
  size_t i = 0;
  for (size_t l = 0; l < levels.size(); ++l) {
    const double rank = std::clamp(levels[l], 0.0, 1.0) * count;
    if (l == 0) {
      i = static_cast<size_t>(std::lower_bound(cumulative_.begin(), cumulative_.end(), rank) - cumulative_.begin());
      i = std::min(i, last);
    } else {
      while (i < last && rank > cumulative_[i]) ++i;
    }
    const double seen = i ? cumulative_[i - 1] : 0.0;
    const auto [b, n] = buckets[i];
    const double frac = n ? std::clamp((rank - seen) / static_cast<double>(n), 0.0, 1.0) : 0.0;
    out[l] = static_cast<double>(LatencyHistogram::lower_ns(b)) +
             frac * static_cast<double>(LatencyHistogram::width_ns(b));
  }
}

double CumulativeHistogram::quantile(double level) const {
  double out = 0;
  quantiles(std::span(&level, 1), std::span(&out, 1));
  return out;
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

namespace {

// One side, ready to resample: clipped strata, its estimate, and how to rescale its replicates.
struct PreparedSide {
  std::vector<double> strata;  // clipped to the winsorizing bounds
  uint32_t n = 0;
  double estimate = 0;         // winsorized mean of log per-run values
  double shrink = 0;           // replicate deviations from `estimate` are multiplied by this
  double variance = 0;         // of the estimate: unbiased between-run variance / n
};

PreparedSide prepare(const RunSamples& s, double outlier_sigmas) {
  PreparedSide p;
  const ClipBounds b = winsorizing_bounds(s, outlier_sigmas);
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
  p.shrink = between + within > 0 ? std::sqrt(target / (between + within)) : 0.0;
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

RatioInterval bootstrap_ratio(const RunSamples& base, const RunSamples& head, const BootstrapOptions& o) {
  RatioInterval r;
  const PreparedSide b = prepare(base, o.outlier_sigmas);
  const PreparedSide h = prepare(head, o.outlier_sigmas);
  r.base_ns = std::exp(b.estimate);
  r.head_ns = std::exp(h.estimate);
  r.ratio = std::exp(h.estimate - b.estimate);
  r.df = welch_df(b, h);

  std::vector<double> diffs(static_cast<size_t>(std::max(o.resamples, 1)));
  Xoshiro256 rng(o.seed);
  for (double& d : diffs) {
    const double rb = b.estimate + b.shrink * (replicate_side(b.strata.data(), b.n, rng) - b.estimate);
    const double rh = h.estimate + h.shrink * (replicate_side(h.strata.data(), h.n, rng) - h.estimate);
    d = rh - rb;
  }
  // The percentile levels a t interval with r.df degrees of freedom would have.
  const double alpha = 1 - o.confidence;
  const double t_crit = student_t_quantile(1 - alpha / 2, r.df);
  const double level = normal_cdf(-t_crit);
  const double lo = percentile(diffs, level);
  const double hi = percentile(diffs, 1 - level);
  r.ci_low = std::exp(lo);
  r.ci_high = std::exp(hi);
  r.log_center = (lo + hi) / 2;
  r.log_scale = (hi - lo) / (2 * t_crit);
  return r;
}

}  // namespace gate::stats
