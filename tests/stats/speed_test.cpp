// Tests of the speed factors (stats/speed.hpp), the paired interval (paired_ratio) and what they
// do to verdicts on synthetic runs with a CI runner's two speed states.
#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "stats/bootstrap.hpp"
#include "explain/explain.hpp"
#include "stats/compare.hpp"
#include "stats/distributions.hpp"
#include "stats/speed.hpp"
#include "synthetic.hpp"

namespace gate::stats {
namespace {

using testing::SyntheticFunction;
using testing::SyntheticNoise;

double plain_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A run-wide shift added to every function is recovered exactly as the run's factor (relative to
// the median run), and the leave-one-out factor equals a brute-force median of the others.
TEST(SpeedFactors, RecoverRunShiftsAndLeaveOneOutMatchesBruteForce) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> jitter(0.0, 0.01);
  const std::vector<double> shift = {0.0, 0.3, -0.1, 0.3, 0.0, 0.05};
  std::vector<std::vector<double>> values[2];
  for (int side = 0; side < 2; ++side)
    for (double s : shift) {
      std::vector<double> run;
      for (int f = 0; f < 9; ++f) run.push_back(std::log(1000.0 * (f + 1)) + s + jitter(rng));
      values[side].push_back(run);
    }
  values[1][2][4] = std::numeric_limits<double>::quiet_NaN();  // a run without one function
  values[1][3][0] += 2.0;                                      // one function far off in one run
  const SpeedFactors sf = estimate_speed(values);
  ASSERT_TRUE(sf.usable) << explain::speed_not_used(sf.why_not);
  for (int side = 0; side < 2; ++side)
    for (size_t r = 0; r < shift.size(); ++r) {
      EXPECT_NEAR(sf.all[side][r], shift[r] - 0.025, 0.03) << "side " << side << " run " << r;
      for (size_t f = 0; f < 9; ++f) {
        // Brute force: each function's reference is its median over all runs of both sides.
        std::vector<double> devs;
        for (size_t g = 0; g < 9; ++g) {
          if (g == f || std::isnan(values[side][r][g])) continue;
          std::vector<double> col;
          for (int s2 = 0; s2 < 2; ++s2)
            for (const auto& run : values[s2])
              if (!std::isnan(run[g])) col.push_back(run[g]);
          devs.push_back(values[side][r][g] - plain_median(col));
        }
        EXPECT_NEAR(sf.leave_out(side, r, f), plain_median(devs), 1e-12) << side << " " << r << " " << f;
      }
    }
  // The outlier function's own factor in that run ignores its own +2.
  EXPECT_NEAR(sf.leave_out(1, 3, 0), shift[3] - 0.025, 0.03);
}

TEST(SpeedFactors, TooFewFunctionsIsNotUsableAndSaysWhichRun) {
  std::vector<std::vector<double>> values[2];
  for (int side = 0; side < 2; ++side)
    for (int r = 0; r < 3; ++r) values[side].push_back(std::vector<double>(6, 1.0 + r));
  values[1][1] = {1, 2, 3, 4, std::nan(""), std::nan("")};
  const SpeedFactors sf = estimate_speed(values);
  EXPECT_FALSE(sf.usable);
  EXPECT_EQ(sf.why_not.kind, SpeedNotUsed::Kind::kTooFewFunctions);
  EXPECT_EQ(sf.why_not.side, "head");
  EXPECT_EQ(sf.why_not.run, 2u);
  EXPECT_EQ(sf.why_not.functions, 4u);
  EXPECT_EQ(explain::speed_not_used(sf.why_not), "head run 2 has 4 functions with enough calls (>= 5 needed)");
  EXPECT_EQ(sf.leave_out(0, 0, 0), 0.0);
}

// Paired differences of exactly known point values: the Student t interval by its formula.
TEST(PairedRatio, StudentIntervalOverPairDifferences) {
  const std::vector<double> d = {0.10, 0.12, 0.08, 0.11, 0.09, 0.13};
  RunSamples base, head;
  double mean = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const double b = 1000.0 * (1 + 0.3 * static_cast<double>(i % 3));  // the pairs differ a lot
    base.add_point_run(b, i);
    head.add_point_run(b * std::exp(d[i]), i);
    mean += d[i] / static_cast<double>(d.size());
  }
  double var = 0;
  for (double x : d) var += (x - mean) * (x - mean) / static_cast<double>(d.size() - 1);
  const double se = std::sqrt(var / static_cast<double>(d.size()));
  const double t = student_t_quantile(0.975, static_cast<double>(d.size() - 1));
  int pairs = 0;
  const RatioInterval r = paired_ratio(base, head, {}, &pairs);
  EXPECT_EQ(pairs, 6);
  EXPECT_NEAR(std::log(r.ratio), mean, 1e-9);
  EXPECT_NEAR(std::log(r.ci_low), mean - t * se, 1e-6);
  EXPECT_NEAR(std::log(r.ci_high), mean + t * se, 1e-6);
  EXPECT_DOUBLE_EQ(r.df, 5);
  // Unpaired, the same data is far less certain: the pairs' own spread is not taken out.
  const RatioInterval u = bootstrap_ratio(base, head, {});
  EXPECT_GT(std::log(u.ci_high / u.ci_low), 5 * std::log(r.ci_high / r.ci_low));
}

TEST(PairedRatio, MatchesRunsById) {
  RunSamples base, head;
  for (size_t i : {0, 1, 2, 4}) base.add_point_run(1000, i);
  for (size_t i : {1, 2, 3, 4}) head.add_point_run(1100, i);
  int pairs = 0;
  const RatioInterval r = paired_ratio(base, head, {}, &pairs);
  EXPECT_EQ(pairs, 3);
  EXPECT_NEAR(r.ratio, 1.1, 1e-9);
}

// speed_normalization: fitted. Pairs whose head/base log ratio follows the pair's speed-factor
// difference s with a power beta: the fitted interval covers the true ratio ~95% of the time for
// beta 1 (where plain normalization is exact), 2 and 0.4 (where it leaves beta - 1 of s in the
// noise), at 10 and 30 pairs, and is narrower than plain normalization's when beta is 2. Its
// degrees of freedom are pairs - 2; with too few pairs it is plain normalization.
TEST(PairedRatio, FittedElasticityCoversAndNarrows) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> unit(0.0, 1.0);
  for (const double beta : {1.0, 2.0, 0.4}) {
    for (const int n : {10, 30}) {
      int covered = 0, covered_plain = 0;
      double width_fit = 0, width_plain = 0;
      const int datasets = 1500;
      for (int k = 0; k < datasets; ++k) {
        RunSamples base, head;
        for (int i = 0; i < n; ++i) {
          const double ob = 0.10 * unit(rng), oh = ob + 0.08 * unit(rng);  // the pair shares part of its speed
          base.add_point_run(1000 * std::exp(beta * ob + 0.03 * unit(rng)), i, ob);
          head.add_point_run(1070 * std::exp(beta * oh + 0.03 * unit(rng)), i, oh);
        }
        BootstrapOptions o;
        int pairs = 0;
        const RatioInterval plain = paired_ratio(base, head, o, &pairs);
        o.fit_elasticity = true;
        const RatioInterval fitted = paired_ratio(base, head, o, &pairs);
        EXPECT_EQ(fitted.df, n - 2);
        covered += fitted.ci_low <= 1.07 && 1.07 <= fitted.ci_high;
        covered_plain += plain.ci_low <= 1.07 && 1.07 <= plain.ci_high;
        width_fit += std::log(fitted.ci_high / fitted.ci_low) / datasets;
        width_plain += std::log(plain.ci_high / plain.ci_low) / datasets;
      }
      const double cov = 100.0 * covered / datasets;
      std::printf("beta %.1f, %d pairs: fitted coverage %.1f%% (plain %.1f%%), mean log-width fitted %.3f, plain %.3f\n",
                  beta, n, cov, 100.0 * covered_plain / datasets, width_fit, width_plain);
      EXPECT_GE(cov, 93.0) << "beta " << beta << ", " << n << " pairs";
      EXPECT_LE(cov, 97.0) << "beta " << beta << ", " << n << " pairs";
      if (beta == 2.0) EXPECT_LT(width_fit, 0.75 * width_plain) << n << " pairs";
      if (beta == 1.0) EXPECT_LT(width_fit, 1.15 * width_plain) << n << " pairs: the fit's price where it is not needed";
    }
  }
  // Three pairs: nothing to fit a slope with; plain normalization, pairs - 1 degrees of freedom.
  RunSamples base, head;
  for (int i = 0; i < 3; ++i) {
    base.add_point_run(1000 * std::exp(0.1 * i), i, 0.1 * i);
    head.add_point_run(1100 * std::exp(0.3 * i), i, 0.2 * i);
  }
  BootstrapOptions o;
  o.fit_elasticity = true;
  int pairs = 0;
  const RatioInterval r = paired_ratio(base, head, o, &pairs);
  EXPECT_EQ(r.df, 2);
  EXPECT_EQ(r.elasticity, 1);
}

// The fitted power itself: exact data d = log(1.1) + 2 s gives beta 2 and the ratio 1.1.
TEST(PairedRatio, FittedElasticityRecoversAnExactPower) {
  RunSamples base, head;
  for (int i = 0; i < 8; ++i) {
    const double ob = 0.02 * i, oh = 0.05 * ((i * 5) % 8) - 0.1;
    base.add_point_run(1000 * std::exp(2 * ob), i, ob);
    head.add_point_run(1100 * std::exp(2 * oh), i, oh);
  }
  BootstrapOptions o;
  o.fit_elasticity = true;
  int pairs = 0;
  const RatioInterval r = paired_ratio(base, head, o, &pairs);
  EXPECT_NEAR(r.elasticity, 2.0, 1e-9);
  EXPECT_NEAR(r.ratio, 1.1, 1e-9);
}

struct Trials {
  int regressions = 0, unchanged = 0, tests = 0, flagged_other = 0, caught = 0;
  double ci_log_width = 0;
};

// trials x A/B of `fns` (function 0 slowed by `slow`), 10 runs a side, a machine with two speed
// states (30% of runs 1.4x slower) on top of 3% per-function noise.
Trials run_trials(const std::vector<SyntheticFunction>& fns, double slow, bool normalize, bool paired_machine,
                  int trials) {
  Trials t;
  const auto meta = testing::synthetic_meta(fns);
  auto head_fns = fns;
  head_fns[0].scale = slow;
  for (int k = 0; k < trials; ++k) {
    SyntheticNoise noise;
    noise.run_sigma = 0.03;
    noise.slow_fraction = 0.3;
    noise.machine_seed = paired_machine ? 5000 + k : 0;
    const auto base = testing::synthetic_runs(fns, 10, noise, 9000 + 2 * k, "base");
    const auto head = testing::synthetic_runs(head_fns, 10, noise, 9001 + 2 * k, "head");
    CompareOptions o;
    o.quantiles = {QuantileSpec::parse("p50")};
    o.thresholds.defaults = {0.05, 0.05};
    o.normalize_speed = normalize;
    const auto c = compare(base, head, meta, meta, o);
    for (const auto& f : c.functions) {
      const auto& q = f.quantiles[0];
      ++t.tests;
      t.ci_log_width += std::log(q.raw_ci_high / q.raw_ci_low);
      if (f.name == fns[0].name) {
        t.caught += q.verdict == Verdict::kRegression;
      } else {
        t.flagged_other += q.verdict == Verdict::kRegression;
        t.unchanged += q.verdict == Verdict::kUnchanged;
      }
    }
  }
  t.ci_log_width /= t.tests;
  return t;
}

// The machine's two speed states make most verdicts undecidable without normalization; with it,
// a 1.25x slowdown of one function among 12 is caught and the others read unchanged.
TEST(SpeedNormalization, CatchesOneSlowFunctionThroughMachineSpeedStates) {
  const auto fns = testing::synthetic_functions(12);
  // Independent states per side: what a stored baseline meets, and the fast part of the swings
  // that back-to-back runs do not share.
  const Trials plain = run_trials(fns, 1.25, false, false, 20);
  const Trials norm = run_trials(fns, 1.25, true, false, 20);
  std::printf("CI log-width: plain %.3f, normalized %.3f; caught plain %d/20, normalized %d/20; "
              "others unchanged plain %d, normalized %d of %d; others flagged %d, %d\n",
              plain.ci_log_width, norm.ci_log_width, plain.caught, norm.caught, plain.unchanged, norm.unchanged,
              20 * 11, plain.flagged_other, norm.flagged_other);
  EXPECT_LT(norm.ci_log_width, 0.5 * plain.ci_log_width);
  EXPECT_GE(norm.caught, 19);
  EXPECT_GT(norm.caught, plain.caught);
  EXPECT_GT(norm.unchanged, plain.unchanged);
  EXPECT_EQ(norm.flagged_other, 0);
  // States shared by each pair (slow swings): pairing alone cancels them; normalization on top
  // costs little (the median of 11 other functions' own noise).
  const Trials paired = run_trials(fns, 1.25, false, true, 20);
  const Trials both = run_trials(fns, 1.25, true, true, 20);
  std::printf("shared states: CI log-width paired %.3f, paired + normalized %.3f\n", paired.ci_log_width,
              both.ci_log_width);
  EXPECT_LT(both.ci_log_width, 1.25 * paired.ci_log_width);
  EXPECT_GE(both.caught, 19);
}

// Everything 1.2x slower: the per-function verdicts cannot see it once normalized, the common
// shift does. Paired (gate ab) it is a regression; against a stored baseline a warning only.
TEST(SpeedNormalization, UniformSlowdownIsTheCommonShift) {
  auto fns = testing::synthetic_functions(8);
  auto head_fns = fns;
  for (auto& f : head_fns) f.scale = 1.2;
  SyntheticNoise noise;
  noise.run_sigma = 0.02;
  noise.shared_per_run = true;
  const auto meta = testing::synthetic_meta(fns);
  const auto base = testing::synthetic_runs(fns, 10, noise, 11, "base");
  const auto head = testing::synthetic_runs(head_fns, 10, noise, 12, "head");
  CompareOptions o;
  o.quantiles = {QuantileSpec::parse("p50")};
  o.thresholds.defaults = {0.05, 0.05};
  const auto paired = compare(base, head, meta, meta, o);
  EXPECT_TRUE(paired.paired);
  ASSERT_TRUE(paired.common_shift_tested);
  EXPECT_NEAR(paired.common_shift.ratio, 1.2, 0.03);
  EXPECT_EQ(paired.common_shift.verdict, Verdict::kRegression);
  EXPECT_TRUE(paired.regressed());
  EXPECT_EQ(paired.counts.regression, 0);

  o.pairing = Pairing::kOff;
  const auto stored = compare(base, head, meta, meta, o);
  EXPECT_FALSE(stored.common_shift_tested);
  EXPECT_FALSE(stored.fails());
  const auto warnings = explain::warnings(stored);
  const bool warned = std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.find("every function moved alike: 1.2") != std::string::npos;
  });
  EXPECT_TRUE(warned);
}

// An inconclusive verdict says how many more runs would decide it, and every tested one what it
// could have detected.
TEST(SpeedNormalization, ReportsNoiseDetectableEffectAndRunsToDecide) {
  const auto fns = testing::synthetic_functions(6);
  auto head_fns = fns;
  head_fns[0].scale = 1.06;  // just beyond a 5% band: inconclusive at 6 runs
  SyntheticNoise noise;
  noise.run_sigma = 0.03;
  const auto meta = testing::synthetic_meta(fns);
  const auto base = testing::synthetic_runs(fns, 6, noise, 21, "base");
  const auto head = testing::synthetic_runs(head_fns, 6, noise, 22, "head");
  CompareOptions o;
  o.quantiles = {QuantileSpec::parse("p50")};
  o.thresholds.defaults = {0.05, 0.05};
  const auto c = compare(base, head, meta, meta, o);
  for (const auto& f : c.functions) {
    const auto& q = f.quantiles[0];
    EXPECT_GT(q.noise, 0.005) << f.name;
    EXPECT_GT(q.detectable, 1.05) << f.name;
    if (q.verdict == Verdict::kInconclusive) {
      EXPECT_GT(q.units_to_decide, q.units) << f.name;
      EXPECT_TRUE(explain::reason(q).find("pairs of runs at the measured noise") != std::string::npos ||
                  explain::reason(q).find("too close to the threshold") != std::string::npos)
          << explain::reason(q);
    }
  }
}

}  // namespace
}  // namespace gate::stats
