// decide_family: the interval a report shows is the one that decided (issue 34), the levels Holm,
// Bonferroni and the looks give it, and suspected regressions. Synthetic runs and hand-made tests;
// no fixed answers.
#include "stats/family.hpp"
#include "explain/explain.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stats/compare.hpp"
#include "stats/instrument.hpp"
#include "stats/distributions.hpp"
#include "stats/sequential.hpp"
#include "synthetic.hpp"

namespace gate::stats {
namespace {

constexpr double kAlpha = 0.025;  // one-sided, confidence 0.95

// A test whose log ratio is estimated at log(ratio) with standard error se on df degrees of freedom.
QuantileComparison test_at(double ratio, double se, double band = 0.10, double df = 9) {
  QuantileComparison q;
  q.name = "p50";
  q.band = {band, band};
  q.ratio = ratio;
  q.log_center = std::log(ratio);
  q.log_scale = se;
  q.df = df;
  q.units = static_cast<int>(df) + 1;
  q.noise = se * std::sqrt(static_cast<double>(q.units));
  const double up = std::log(1 + band), down = std::log(1 - band);
  q.p_regression = student_t_upper_tail((q.log_center - up) / se, df);
  q.p_improvement = student_t_cdf((q.log_center - down) / se, df);
  q.p_unchanged = std::max(student_t_cdf((q.log_center - up) / se, df), student_t_upper_tail((q.log_center - down) / se, df));
  q.verdict = Verdict::kUnchanged;  // provisionally tested, as fill_interval leaves it
  return q;
}

std::vector<QuantileComparison*> pointers(std::vector<QuantileComparison>& v) {
  std::vector<QuantileComparison*> out;
  for (auto& q : v) out.push_back(&q);
  return out;
}

// Every verdict agrees with the interval shown beside it, whatever the correction.
void expect_shown_interval_agrees(const QuantileComparison& q, const std::string& what) {
  const double up = 1 + q.band.regression, down = 1 - q.band.improvement;
  switch (q.verdict) {
    case Verdict::kRegression:
      EXPECT_GT(q.ci_low, up) << what;
      break;
    case Verdict::kImprovement:
      EXPECT_LT(q.ci_high, down) << what;
      break;
    case Verdict::kSuspect:
    case Verdict::kInconclusive:
    case Verdict::kUnchanged:
      EXPECT_LE(q.ci_low, up * (1 + 1e-9)) << what << " " << to_string(q.verdict);
      EXPECT_GE(q.ci_high, down * (1 - 1e-9)) << what << " " << to_string(q.verdict);
      break;
    case Verdict::kInsufficientData:
      break;
  }
  if (q.verdict == Verdict::kSuspect) {
    EXPECT_GT(q.ratio, up) << what;
  }
  EXPECT_LE(q.ci_low, q.raw_ci_low > 0 ? std::min(q.ratio, q.raw_ci_low) * (1 + 1e-9) : q.ratio) << what;
}

// Holm: with r of m rejected, every test is shown at alpha / (m - r); Bonferroni alpha / m; none alpha.
TEST(Family, LevelOfTheShownIntervalFollowsTheCorrection) {
  for (Multiplicity m : {Multiplicity::kHolm, Multiplicity::kBonferroni, Multiplicity::kNone}) {
    // Two clear regressions, one borderline, three unchanged: 6 tests.
    std::vector<QuantileComparison> v = {test_at(1.60, 0.02), test_at(1.45, 0.02), test_at(1.16, 0.02),
                                         test_at(1.0, 0.02),  test_at(1.01, 0.02), test_at(0.99, 0.02)};
    CompareOptions o;
    o.multiplicity = m;
    decide_family(pointers(v), o);
    int rejected = 0;
    for (const auto& q : v) rejected += q.verdict == Verdict::kRegression;
    const double expected = m == Multiplicity::kNone ? kAlpha
                            : m == Multiplicity::kBonferroni ? kAlpha / 6
                                                             : kAlpha / (6 - rejected);
    for (const auto& q : v) {
      EXPECT_NEAR(q.ci_level_regression, expected, 1e-12) << to_string(m);
      const double lo = std::exp(q.log_center - student_t_quantile(1 - expected, q.df) * q.log_scale);
      EXPECT_NEAR(q.ci_low, lo, 1e-9 * lo) << to_string(m);
      expect_shown_interval_agrees(q, std::string(to_string(m)));
    }
  }
}

// The looks: the shown bound sits at the per-look level whose sequential p is the family's level.
TEST(Family, LooksWidenTheShownIntervalToThePerLookLevel) {
  std::vector<QuantileComparison> one = {test_at(1.20, 0.03), test_at(1.0, 0.03)};
  std::vector<QuantileComparison> seq = one;
  CompareOptions o1, os;
  os.first_look = 5;
  os.last_look = 20;
  decide_family(pointers(one), o1);
  decide_family(pointers(seq), os);
  const double per_look = sequential_looks(5, 20).per_look_level(kAlpha / 2);
  EXPECT_NEAR(seq[1].ci_level_regression, per_look, 1e-12);
  EXPECT_LT(per_look, kAlpha / 2);
  EXPECT_LT(seq[1].ci_low, one[1].ci_low);
  for (const auto& q : seq) expect_shown_interval_agrees(q, "looks 5..20");
}

// Issue 34's case: a test clearly past its threshold on its own, in a family of 30 tests.
TEST(Family, ATestPastItsThresholdOnlyOnItsOwnIsASuspect) {
  std::vector<QuantileComparison> family;
  family.push_back(test_at(1.13, 0.0075));  // ~[1.11, 1.15] alone: whole interval above +10%
  for (int i = 0; i < 29; ++i) family.push_back(test_at(1.0 + 0.002 * (i % 5), 0.02));
  CompareOptions o;
  o.first_look = 5;
  o.last_look = 10;
  decide_family(pointers(family), o);
  auto& q = family[0];
  EXPECT_EQ(q.verdict, Verdict::kSuspect) << explain::reason(q);
  EXPECT_EQ(q.why.kind, Why::Kind::kSuspect);
  EXPECT_EQ(q.why.tests, 30);
  EXPECT_GT(q.why.own_low, 1.10);  // its own interval, looks counted, lies past the threshold
  EXPECT_LT(q.p_regression_own, kAlpha);
  EXPECT_GE(q.p_regression_adjusted, kAlpha);
  EXPECT_LE(q.ci_low, 1.10);  // the interval that decided reaches below the threshold
  EXPECT_NE(explain::reason(q).find("on its own (6 looks counted) its interval ["), std::string::npos) << explain::reason(q);
  EXPECT_NE(explain::reason(q).find("after Holm over 30 tests and 6 looks"), std::string::npos) << explain::reason(q);
  for (const auto& t : family) expect_shown_interval_agrees(t, "family of 30");
  // Alone, the same test is a regression.
  std::vector<QuantileComparison> alone = {family[0]};
  decide_family(pointers(alone), o);
  EXPECT_EQ(alone[0].verdict, Verdict::kRegression);
  EXPECT_GT(alone[0].ci_low, 1.10);
}

// Past its threshold by the estimate but not on its own test: inconclusive, not a suspect.
TEST(Family, AnEstimatePastTheThresholdAloneIsNotASuspect) {
  std::vector<QuantileComparison> v = {test_at(1.12, 0.05)};
  CompareOptions o;
  decide_family(pointers(v), o);
  EXPECT_EQ(v[0].verdict, Verdict::kInconclusive);
  EXPECT_EQ(v[0].why.kind, Why::Kind::kAboveButWide);
  EXPECT_NE(explain::reason(v[0]).find("estimate 1.120 is above +10%"), std::string::npos) << explain::reason(v[0]);
}

// One function, two instruments: a latency test past the band by its estimate but wide (a wait
// doubled on a noisy window) beside a cpu/call test that says unchanged. The function is
// inconclusive, never unchanged; the same cpu/call beside a latency test near 1 is unchanged.
TEST(Family, AnUnchangedInstrumentDoesNotSpeakOverAnotherPastTheBand) {
  auto judge = [](double p50_ratio) {
    std::vector<QuantileComparison> v = {test_at(p50_ratio, 0.15, 0.05), test_at(1.0, 0.005, 0.05)};
    v[1].name = kSampledTestName;
    CompareOptions o;
    decide_family(pointers(v), o);
    EXPECT_EQ(v[1].verdict, Verdict::kUnchanged) << explain::reason(v[1]);
    return std::make_pair(v[0], function_verdict(v));
  };
  const auto [wide, verdict] = judge(1.4);
  EXPECT_EQ(wide.verdict, Verdict::kInconclusive) << explain::reason(wide);
  EXPECT_EQ(wide.why.kind, Why::Kind::kAboveButWide);
  EXPECT_EQ(verdict, Verdict::kInconclusive) << "a 1.4x latency estimate is not overruled by the CPU's unchanged";
  const auto [near, near_verdict] = judge(1.01);
  EXPECT_NE(near.why.kind, Why::Kind::kAboveButWide);
  EXPECT_EQ(near_verdict, Verdict::kUnchanged) << "the better instrument speaks when the other is merely undecided";
}

// Whole comparisons of synthetic runs, paired and not, with and without looks, over a range of
// shifts and family sizes: no verdict ever stands beside an interval that contradicts it.
TEST(Family, NoReportedIntervalContradictsItsVerdict) {
  int suspects = 0, regressions = 0, tests = 0;
  for (int family : {1, 8, 30}) {
    for (double shift : {0.85, 0.95, 1.0, 1.04, 1.08, 1.12, 1.2}) {
      for (bool paired : {true, false}) {
        for (int looks : {0, 10}) {
          auto base = testing::synthetic_functions(family);
          auto head = base;
          head[0].scale = shift;
          testing::SyntheticNoise noise;
          noise.run_sigma = 0.03;
          const uint64_t seed = static_cast<uint64_t>(family * 1000 + shift * 100 + paired * 7 + looks);
          const auto b = testing::synthetic_runs(base, 10, noise, seed, "base");
          const auto h = testing::synthetic_runs(head, 10, noise, seed + 1, "head");
          const auto meta = testing::synthetic_meta(base);
          CompareOptions o;
          o.thresholds.defaults = {0.05, 0.05};
          o.pairing = paired ? Pairing::kOn : Pairing::kOff;
          if (looks) {
            o.first_look = 10;
            o.last_look = 10 + looks;
          }
          const Comparison c = compare(b, h, meta, meta, o);
          for (const auto& f : c.functions)
            for (const auto& q : f.quantiles) {
              if (!q.tested()) continue;
              ++tests;
              suspects += q.verdict == Verdict::kSuspect;
              regressions += q.verdict == Verdict::kRegression;
              expect_shown_interval_agrees(q, f.name + " " + q.name + " family " + std::to_string(family) +
                                                  " shift " + std::to_string(shift) + (paired ? " paired" : "") +
                                                  " looks " + std::to_string(looks));
            }
        }
      }
    }
  }
  std::printf("%d tests: %d regressions, %d suspects\n", tests, regressions, suspects);
  EXPECT_GT(regressions, 0);
}

// fail_on_suspect makes a suspect fail the build; by default it passes and is counted.
TEST(Family, FailOnSuspectDecidesTheExitCode) {
  auto base = testing::synthetic_functions(30);
  auto head = base;
  testing::SyntheticNoise noise;
  noise.run_sigma = 0.03;
  bool saw = false;
  for (double shift = 1.05; shift <= 1.25 && !saw; shift += 0.01) {
    head[0].scale = shift;
    const auto b = testing::synthetic_runs(base, 10, noise, 21, "base");
    const auto h = testing::synthetic_runs(head, 10, noise, 22, "head");
    const auto meta = testing::synthetic_meta(base);
    CompareOptions o;
    o.quantiles = {QuantileSpec::parse("p50")};
    o.thresholds.defaults = {0.05, 0.05};
    const Comparison pass = compare(b, h, meta, meta, o);
    if (pass.counts.suspect == 0 || pass.counts.regression > 0) continue;
    saw = true;
    EXPECT_FALSE(pass.fails());
    EXPECT_FALSE(pass.suspects_fail);
    o.fail_on_suspect = true;
    const Comparison fail = compare(b, h, meta, meta, o);
    EXPECT_EQ(fail.counts.suspect, pass.counts.suspect);
    EXPECT_TRUE(fail.fails());
    EXPECT_TRUE(fail.suspects_fail);
    EXPECT_FALSE(fail.regressed());
  }
  EXPECT_TRUE(saw) << "no shift in 1.05..1.25 gave a suspect among 30 functions";
}

}  // namespace
}  // namespace gate::stats
