// The hierarchical bootstrap behind every verdict: runs resampled with replacement, then within each
// resampled run its quantile re-drawn from the sampling distribution that run's histogram implies.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "results/histogram.hpp"
#include "results/result.hpp"

namespace gate::stats {

// The within-run level of the bootstrap, made cheap and exact in distribution. Re-drawing the n
// calls of a run (a bucket by count, then a uniform point inside it: draws from the piecewise-
// uniform distribution G the histogram describes) and taking their q-quantile gives G^-1(U), where
// U is the matching order statistic of n uniforms: U ~ Beta(q(n+1), (1-q)(n+1)). So instead of
// drawing n calls per resampled run (2000 calls x 40 runs x 2000 resamples per test: far too slow),
// each run stores G^-1 at kWithinRunStrata equiprobable levels of that Beta distribution, and a
// resample picks one of them. Approximations: the discretization (the levels are spread so that
// the strata have the continuous distribution's variance; plain midpoints of 32 strata would lose
// 4% of it) and A&S's Beta quantile (< 1% of its sd). 32 rather than 64 strata: the precomputation
// was half the cost of a comparison, and the within-run noise is the smaller of the two levels.
inline constexpr uint32_t kWithinRunStrata = 32;

// Reads quantiles off a run's histogram -- G^-1(level), exactly LatencyHistogram::quantile's value
// -- walking the buckets forward from where the previous read stopped: a run's strata for p50,
// p90 and p99 (99 levels) then cost one pass over its buckets. Reading those buckets from memory
// was the largest cost of a comparison; a walk from the first bucket per quantile read them
// three times, and a cumulative-count array per run cost as much to build. A level below the
// previous one restarts from the first bucket (correct, just slower). Keeps a pointer to h.
class HistogramCursor {
 public:
  explicit HistogramCursor(const LatencyHistogram& h) : h_(&h) {}
  uint64_t count() const { return h_->count(); }
  // level in [0, 1]; NaN for an empty histogram.
  double at(double level);

 private:
  const LatencyHistogram* h_;
  size_t bucket_ = 0;  // where the walk stands
  double seen_ = 0;    // calls in the buckets before it
};

// One side (base or head) of one function and one statistic: per run, log(ns) of the point
// estimate and of the kWithinRunStrata strata of its sampling distribution.
class RunSamples {
 public:
  // Every add_* takes the run's id (its index among the side's runs: paired_ratio matches base
  // and head runs by it) and a log-space offset subtracted from the run's values (the run's
  // speed factor, see stats/speed.hpp; 0 for none).
  //
  // The q-quantile (0 < q < 1) of a run's calls; the histogram must not be empty. Reading the
  // quantiles of one run in ascending q through one cursor makes one pass over its buckets.
  void add_quantile_run(HistogramCursor& h, double q, size_t run_id = 0, double log_offset = 0);
  // The mean of a run's calls: exact sum_ns / calls, spread sd / sqrt(n) from the histogram (the
  // central limit theorem; the caller asks for enough calls that it applies).
  void add_mean_run(const FunctionRun& f, size_t run_id = 0, double log_offset = 0);
  // A value known exactly: no within-run spread (plain per-run data, and tests).
  void add_point_run(double ns, size_t run_id = 0, double log_offset = 0);
  // A value proportional to a Poisson count (the sampled instrument's CPU per call: samples x period
  // / calls): its within-run spread is the count's, log-sd 1 / sqrt(count). paired_ratio floors a
  // pair's variance at it, so that a few pairs alike by chance cannot make an interval narrower than
  // their counts allow (a clean-clone CI run of 2026-12-02 flagged an unchanged function, ~100
  // samples a unit, 1.16x [1.07, 1.25] at 4 tested pairs: its pairs' spread read below the counts'
  // own 14%). count 0: as add_point_run.
  void add_count_run(double ns, uint64_t count, size_t run_id = 0, double log_offset = 0);
  // The mean of the calls between two levels of a run's distribution, lo < hi in [0, 1] (e.g. 0.25
  // and 0.75: the interquartile mean): the stand-in for a quantile that lies between two modes
  // (see WindowMean in stats/compare.cpp). Spread: the trimmed mean's standard error, winsorized
  // sd / ((hi - lo) sqrt(n)).
  void add_window_mean_run(const LatencyHistogram& h, double lo, double hi, size_t run_id = 0, double log_offset = 0);

  size_t runs() const { return points_.size(); }
  size_t run_id(size_t run) const { return ids_[run]; }
  double point_log_ns(size_t run) const { return points_[run]; }  // offset already subtracted
  double log_offset(size_t run) const { return offsets_[run]; }
  std::span<const double> strata_log_ns(size_t run) const {
    return {strata_.data() + run * kWithinRunStrata, kWithinRunStrata};
  }
  const std::vector<double>& all_strata() const { return strata_; }

 private:
  void add(double point_ns, std::span<const double> strata_ns, size_t run_id, double log_offset);
  std::vector<double> points_;
  std::vector<size_t> ids_;
  std::vector<double> offsets_;
  std::vector<double> strata_;  // runs() x kWithinRunStrata, row-major
};

struct BootstrapOptions {
  int resamples = 2000;
  double confidence = 0.95;     // two-sided percentile interval
  double outlier_sigmas = 4.0;  // see winsorized_log_mean()
  uint64_t seed = 0;
  // paired_ratio only: fit how strongly this function follows the runs' speed factors (see
  // paired_ratio) instead of taking the offsets as they are.
  bool fit_elasticity = false;
};

// The head/base ratio of one statistic with its bootstrap distribution summarized.
//
// Calibration, measured on synthetic runs before these corrections (10 runs a side): resampling
// both levels counts the within-run noise twice (it is already part of how the runs' values
// differ), so p99 intervals -- where within-run noise dominates -- covered 98.4% instead of 95%;
// and the bootstrap of a mean over 10 runs is too narrow with too light tails (p50: 94% coverage,
// p < 1e-4 seen 17x too often, which Holm's alpha / 60 would turn into false regressions). So:
//  - each side's replicates are rescaled around its estimate to the unbiased between-run
//    variance of its runs' values (n / (n-1) times the plug-in variance, and never below the
//    runs' own within-run variance): the within-run level still shapes and smooths the
//    distribution (10 runs alone give a lumpy one), but no longer adds variance;
//  - the interval and the p-values use Student t tails with Welch's degrees of freedom: the
//    percentile levels are those a t interval would have (2.1 instead of 1.96 SEs for 18 df).
struct RatioInterval {
  double base_ns = 0;  // exp(winsorized mean over runs of log per-run value)
  double head_ns = 0;
  double ratio = 0;    // head_ns / base_ns
  double ci_low = 0;   // percentile interval of the bootstrap ratios
  double ci_high = 0;
  double df = 0;       // Welch's degrees of freedom of the two sides' run-level variances
  // The bootstrap distribution of log(ratio) as a t distribution (df) with the interval's
  // midpoint and the scale its width implies. Holm needs p-values far below 1/resamples (alpha /
  // 60 tests is 4e-4; 2000 resamples resolve 5e-4), which only a model of the tail can give.
  // Centering on the interval (not the bootstrap median) makes "p < (1-confidence)/2" coincide
  // exactly with "the interval excludes the bound": with one test, Holm and the interval agree.
  double log_center = 0;
  double log_scale = 0;
  double elasticity = 1;  // paired_ratio with fit_elasticity: the fitted power of the speed factor

  // One-sided p-value for H0: ratio <= bound (evidence the ratio is above bound).
  double p_above(double bound) const;
  // One-sided p-value for H0: ratio >= bound (evidence the ratio is below bound).
  double p_below(double bound) const;
};

// Both sides need >= 2 runs. Deterministic: the same inputs and seed give the same result.
RatioInterval bootstrap_ratio(const RunSamples& base, const RunSamples& head, const BootstrapOptions& options);

// The ratio from paired runs (gate ab runs base and head back to back, so run i of each side
// met the same state of the machine): per pair the log difference head - base, winsorized as
// winsorized_log_mean does, its mean, and a Student t interval with pairs - 1 degrees of freedom.
// The variance is the pairs' own, but never below the two runs' within-run sampling variance.
// Why pairing: the machine's slow swings (seconds) hit both runs of a pair alike and cancel; in
// the shop A/A it narrowed the per-unit log-sd by another 10-20% after speed normalization.
// `pairs` receives the number of pairs used; the interval is meaningful only when it is >= 2.
//
// fit_elasticity: the offsets (speed factors) are taken out with a power fitted per function
// rather than 1. Functions do not follow the machine's speed alike: in the shop A/A under CI load
// (tests/bench/noise_lab.py) the pair log ratio of (*Cart).Checkout and Order.Invoice moved
// ~1.5-1.8x as much as the other functions' median shift, (*Category).Walk ~0.4x; dividing by the
// factor itself left them 2-3x noisier than their neighbours. Per pair i, with d_i the log ratio
// before normalization and s_i = head offset - base offset, the model d_i = delta + beta s_i + e_i
// is fitted by least squares (the covariate adjustment of a paired design, ANCOVA); the estimate
// is delta = mean(d - beta s), its standard error sigma * sqrt(1/n + mean(s)^2 / Sxx) with
// sigma^2 = RSS / (n - 2), and the t interval has n - 2 degrees of freedom. Winsorizing applies to
// the adjusted differences. With fewer than 4 pairs, or offsets that do not vary, beta is 1.
RatioInterval paired_ratio(const RunSamples& base, const RunSamples& head, const BootstrapOptions& options,
                           int* pairs);

// The interval every test uses: paired_ratio when `paired` (gate ab), else bootstrap_ratio.
// *units receives what the interval rests on: the pairs used, or the smaller side's runs.
RatioInterval ratio_over_runs(const RunSamples& base, const RunSamples& head, const BootstrapOptions& options,
                              bool paired, int* units);

// The statistic of one side, on log(ns) of the per-run values: their mean after clipping each to
// the side's median +- outlier_sigmas * s. s is the robust sd of the runs' values: 1.4826 * MAD
// of the side, but never below that of both sides' deviations pooled (a MAD of 5-10 values is
// noisy, and a small one clipped ordinary runs: 95% intervals then covered 92.5% at 5 runs), nor below the
// runs' typical within-run sd (a run's own sampling noise is never an outlier).
// Why this and not the median or a trimmed mean of the runs: with no outlier run it is the mean
// (full efficiency; over 10 runs a median keeps ~72% and a 20%-trimmed mean ~89%, which costs
// detection power the gate cannot spare), while one wild run (a GC storm, a noisy neighbour)
// moves it by at most outlier_sigmas / n robust SDs. And the clipping bounds are fixed from the
// data once, so each bootstrap replicate is a plain mean over pre-clipped strata: no selection
// per replicate (a trimmed mean's made the bootstrap 2x slower). The price: the replicates do not
// re-estimate the bounds, which only matters when the bounds bind, i.e. with an outlier run.
struct ClipBounds {
  double low = 0;
  double high = 0;
};
std::pair<ClipBounds, ClipBounds> winsorizing_bounds(const RunSamples& base, const RunSamples& head,
                                                     double outlier_sigmas);
double winsorized_log_mean(const RunSamples& side, const ClipBounds& bounds);

}  // namespace gate::stats
