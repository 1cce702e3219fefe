// The bootstrap's pieces against independent references: histogram quantiles vs numpy, the
// within-run strata vs brute-force resampling of calls, and the plain bootstrap vs a Python
// implementation and Welch's t interval; plus coverage, determinism and the outlier clipping.
#include "stats/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace gate::stats {
namespace {

LatencyHistogram histogram_from(const nlohmann::json& buckets) {
  LatencyHistogram h;
  for (const auto& b : buckets) h.add_bucket(b[0].get<uint32_t>(), b[1].get<uint64_t>());
  return h;
}

RunSamples points(const std::vector<double>& ns) {
  RunSamples s;
  for (double v : ns) s.add_point_run(v);
  return s;
}

double mean_of(std::span<const double> v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double sd_of(std::span<const double> v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}

// Bit-identical to LatencyHistogram::quantile, whatever the order of the reads (ascending reads
// walk forward; a lower level restarts the walk).
TEST(HistogramCursor, SameValuesAsLatencyHistogramQuantile) {
  for (const auto& d : testing::fixture("histogram_quantiles.json", "datasets")) {
    const LatencyHistogram h = histogram_from(d["buckets"]);
    HistogramCursor ascending(h), shuffled(h);
    std::vector<double> levels;
    for (int i = 0; i <= 1000; ++i) levels.push_back(i / 1000.0);
    for (double q : levels) EXPECT_EQ(ascending.at(q), h.quantile(q)) << d["name"] << " at " << q;
    std::shuffle(levels.begin(), levels.end(), std::mt19937_64(1));
    for (double q : levels) EXPECT_EQ(shuffled.at(q), h.quantile(q)) << d["name"] << " at " << q << " (shuffled)";
  }
  LatencyHistogram empty;
  EXPECT_TRUE(std::isnan(HistogramCursor(empty).at(0.5)));
}

TEST(HistogramCursor, MatchesPythonInterpolationAndBracketsNumpy) {
  for (const auto& d : testing::fixture("histogram_quantiles.json", "datasets")) {
    LatencyHistogram h;
    for (const auto& s : d["samples"]) h.add(s.get<uint64_t>());
    EXPECT_EQ(h, histogram_from(d["buckets"])) << d["name"] << ": bucketing differs from the Python re-implementation";
    HistogramCursor c(h);
    for (size_t i = 0; i < d["levels"].size(); ++i) {
      const double q = d["levels"][i];
      const double ours = c.at(q);
      EXPECT_NEAR(ours, d["interpolated"][i].get<double>(), 1e-9 * ours) << d["name"] << " q=" << q;
      // The histogram only knows the calls' buckets: its answer lies between the buckets of the
      // calls ranked around q * n, and so, up to interpolation across a gap, does numpy's.
      const double lo = d["bracket_low"][i], hi = d["bracket_high"][i];
      EXPECT_GE(ours, lo) << d["name"] << " q=" << q;
      EXPECT_LE(ours, hi) << d["name"] << " q=" << q;
      EXPECT_NEAR(ours, d["numpy"][i].get<double>(), hi - lo) << d["name"] << " q=" << q;
    }
  }
}

// The strata must have the distribution of the quantile of n calls re-drawn from the histogram.
TEST(RunSamples, WithinRunStrataMatchBruteForceResampling) {
  for (const auto& c : testing::fixture("within_run.json", "cases")) {
    const LatencyHistogram h = histogram_from(c["buckets"]);
    const double q = c["q"];
    RunSamples s;
    HistogramCursor cursor(h);
    s.add_quantile_run(cursor, q);
    const auto strata = s.strata_log_ns(0);
    const double ref_mean = c["log_mean"], ref_sd = c["log_sd"];
    const std::string what = "n=" + std::to_string(c["n"].get<int>()) + " q=" + std::to_string(q);
    EXPECT_NEAR(std::exp(s.point_log_ns(0)), c["point"].get<double>(), 1e-9 * c["point"].get<double>()) << what;
    EXPECT_NEAR(mean_of(strata), ref_mean, 0.1 * ref_sd) << what;
    EXPECT_NEAR(sd_of(strata) / ref_sd, 1.0, 0.06) << what;
    // The middle of the distribution too (the strata are equiprobable: the median is between
    // the two middle strata).
    const double median = (strata[kWithinRunStrata / 2 - 1] + strata[kWithinRunStrata / 2]) / 2;
    EXPECT_NEAR(median, c["log_percentiles"]["50"].get<double>(), 0.1 * ref_sd) << what;
  }
}

// The mean's strata: sd / sqrt(n) of the calls, computed here from the raw calls, not the histogram.
TEST(RunSamples, MeanStrataSpreadIsTheStandardError) {
  const auto d = testing::fixture("histogram_quantiles.json", "datasets")[0];
  FunctionRun f;
  std::vector<double> raw;
  for (const auto& v : d["samples"]) {
    raw.push_back(v.get<double>());
    f.histogram.add(v.get<uint64_t>());
    f.sum_ns += v.get<uint64_t>();
  }
  f.calls = raw.size();
  RunSamples s;
  s.add_mean_run(f);
  std::vector<double> ns;
  for (double x : s.strata_log_ns(0)) ns.push_back(std::exp(x));
  const double se = sd_of(raw) / std::sqrt(static_cast<double>(raw.size()));
  EXPECT_NEAR(std::exp(s.point_log_ns(0)), mean_of(raw), 1e-9 * mean_of(raw));
  EXPECT_NEAR(sd_of(ns) / se, 1.0, 0.05);
}

TEST(Bootstrap, PlainRunsMatchPythonReferenceAndWelch) {
  for (const auto& c : testing::fixture("bootstrap_plain.json", "cases")) {
    BootstrapOptions o;
    o.confidence = c["confidence"];
    o.seed = 42;
    const auto r = bootstrap_ratio(points(c["base_ns"]), points(c["head_ns"]), o);
    const std::string name = c["name"];
    EXPECT_NEAR(r.ratio, c["ratio"].get<double>(), 1e-12 * r.ratio) << name;
    EXPECT_NEAR(r.df, c["df"].get<double>(), 1e-9 * r.df) << name;
    // 2000 resamples against 200,000: the interval ends agree to within Monte Carlo error.
    const double width = std::log(c["ci_high"].get<double>()) - std::log(c["ci_low"].get<double>());
    EXPECT_NEAR(std::log(r.ci_low), std::log(c["ci_low"].get<double>()), 0.08 * width) << name;
    EXPECT_NEAR(std::log(r.ci_high), std::log(c["ci_high"].get<double>()), 0.08 * width) << name;
    // And the textbook interval for normal data, computed by scipy.
    EXPECT_NEAR(std::log(r.ci_low), std::log(c["welch_low"].get<double>()), 0.15 * width) << name;
    EXPECT_NEAR(std::log(r.ci_high), std::log(c["welch_high"].get<double>()), 0.15 * width) << name;
    // With one test, the p-value and the interval say the same thing.
    EXPECT_EQ(r.p_above(r.ci_low * 0.999) < 0.025, true) << name;
    EXPECT_EQ(r.p_above(r.ci_low * 1.001) < 0.025, false) << name;
    EXPECT_EQ(r.p_below(r.ci_high * 1.001) < 0.025, true) << name;
  }
}

TEST(Bootstrap, DeterministicForASeed) {
  const auto c = testing::fixture("bootstrap_plain.json", "cases")[0];
  BootstrapOptions o;
  o.seed = 7;
  const auto a = bootstrap_ratio(points(c["base_ns"]), points(c["head_ns"]), o);
  const auto b = bootstrap_ratio(points(c["base_ns"]), points(c["head_ns"]), o);
  EXPECT_EQ(a.ci_low, b.ci_low);
  EXPECT_EQ(a.ci_high, b.ci_high);
  o.seed = 8;
  const auto d = bootstrap_ratio(points(c["base_ns"]), points(c["head_ns"]), o);
  EXPECT_NE(a.ci_low, d.ci_low);  // another stream, same answer within Monte Carlo error
  EXPECT_NEAR(a.ci_low, d.ci_low, 0.01);
}

TEST(Bootstrap, IdenticalRunsGiveAPointInterval) {
  const auto r = bootstrap_ratio(points(std::vector<double>(6, 1000.0)), points(std::vector<double>(6, 1100.0)), {});
  EXPECT_DOUBLE_EQ(r.ratio, 1.1);
  EXPECT_NEAR(r.ci_low, 1.1, 1e-12);
  EXPECT_NEAR(r.ci_high, 1.1, 1e-12);
  EXPECT_EQ(r.p_above(1.05), 0.0);
  EXPECT_EQ(r.p_above(1.2), 1.0);
  EXPECT_EQ(r.p_below(1.2), 0.0);
}

// One wild run (a GC storm) moves the estimate by at most outlier_sigmas robust SDs / n.
TEST(Bootstrap, AnOutlierRunIsClipped) {
  std::vector<double> v = {1000, 1010, 990, 1005, 995, 1002, 998, 1008, 992, 1000};
  const RunSamples clean = points(v);
  v[3] = 5000;
  const RunSamples wild = points(v);
  const double clean_est = winsorized_log_mean(clean, winsorizing_bounds(clean, clean, 4).first);
  const ClipBounds b = winsorizing_bounds(wild, clean, 4).first;
  const double wild_est = winsorized_log_mean(wild, b);
  const double robust_sd = (b.high - b.low) / 8;
  EXPECT_LT(wild_est - clean_est, 4 * robust_sd / 10 + 1e-3);
  EXPECT_LT(std::exp(wild_est - clean_est), 1.02);  // a plain mean would have moved 17%
}

// Coverage on data with a known ratio: the 95% interval must contain it ~95% of the time, for
// few runs too (a plain percentile bootstrap of 5 runs covers ~88%).
TEST(Bootstrap, CoverageOfTheTrueRatio) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0.0, 0.04);
  for (const auto& [nb, nh] : {std::pair{10, 10}, std::pair{5, 5}, std::pair{6, 15}}) {
    int covered = 0, below_001 = 0;
    const int datasets = 1500;
    for (int i = 0; i < datasets; ++i) {
      std::vector<double> b, h;
      for (int j = 0; j < nb; ++j) b.push_back(1000 * std::exp(noise(rng)));
      for (int j = 0; j < nh; ++j) h.push_back(1070 * std::exp(noise(rng)));
      BootstrapOptions o;
      o.seed = static_cast<uint64_t>(i);
      const auto r = bootstrap_ratio(points(b), points(h), o);
      covered += r.ci_low <= 1.07 && 1.07 <= r.ci_high;
      below_001 += r.p_above(1.07) < 0.01;  // the tail Holm works in must not be too light
    }
    const double cov = 100.0 * covered / datasets, tail = 100.0 * below_001 / datasets;
    std::printf("coverage %d vs %d runs: %.1f%%, P(p < 0.01) = %.2f%% (nominal 1%%)\n", nb, nh, cov, tail);
    EXPECT_GE(cov, 93.0) << nb << " vs " << nh << " runs";
    EXPECT_LE(cov, 97.5) << nb << " vs " << nh << " runs";
    EXPECT_LE(tail, 2.0) << nb << " vs " << nh << " runs";
  }
}

}  // namespace
}  // namespace gate::stats
