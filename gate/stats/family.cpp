// decide_family: the looks' sequential correction, the multiplicity adjustment, each test's verdict
// (regression, suspect, improvement, unchanged, inconclusive) and the interval that decided it.
#include "stats/family.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "stats/bootstrap.hpp"
#include "stats/distributions.hpp"
#include "stats/instrument.hpp"
#include "stats/multiplicity.hpp"
#include "stats/power.hpp"
#include "stats/sequential.hpp"

namespace gate::stats {
namespace {


// The bound of a test's interval at one-sided level `level`: below the centre (sign -1) or above.
double bound_at(const QuantileComparison& qc, double level, int sign) {
  if (qc.exact.used) return qc.exact.bound(level, sign);
  if (!(qc.log_scale > 0)) return std::exp(qc.log_center);
  const double df = qc.df >= 1 ? qc.df : 1e6;
  return std::exp(qc.log_center + sign * student_t_quantile(1 - level, df) * qc.log_scale);
}

// What this test could see: the smallest slowdown caught with ~80% power at its units (the
// first, strictest Holm step: one-sided alpha / tests), and for an inconclusive verdict roughly
// how many units would decide it if the noise and the estimate stay as measured.
void estimate_power(QuantileComparison& qc, const CompareOptions& o, int tests) {
  if (!(qc.noise > 0) || qc.units < 2 || !(qc.df >= 1)) return;
  const double se = qc.noise / std::sqrt(static_cast<double>(qc.units));
  const PowerModel model{o.confidence, tests, 0.8, o.first_look, o.last_look};
  const double crit = student_t_quantile(1 - look_level(model), qc.df);
  qc.detectable = detectable_ratio(qc.noise, qc.units, qc.band.regression, model);
  if (qc.verdict != Verdict::kInconclusive && qc.verdict != Verdict::kSuspect) return;
  const double c = std::log(qc.ratio), up = std::log(1 + qc.band.regression), down = std::log(1 - qc.band.improvement);
  double se_needed;
  if (qc.why.kind == Why::Kind::kWindowMostlyProbes && c <= up) {
    // Unchanged only within the band narrowed to the code's share (decide_test): a window past that
    // narrowed band but inside the whole one is decided by no number of runs here.
    const double code = 1 - qc.why.window_share;
    const double up_n = std::log(1 + qc.band.regression * code), down_n = std::log(1 - qc.band.improvement * code);
    if (!(c < up_n && c > down_n)) return;
    se_needed = std::min(up_n - c, c - down_n) / student_t_quantile(1 - o.equivalence_alpha, qc.df);
  } else if (c > up)
    se_needed = (c - up) / crit;
  else if (c < down)
    se_needed = (down - c) / crit;
  else
    se_needed = std::min(up - c, c - down) / student_t_quantile(1 - o.equivalence_alpha, qc.df);
  if (!(se_needed > 0)) return;
  const double units = std::ceil(qc.units * (se / se_needed) * (se / se_needed));
  qc.units_to_decide = units < 1e6 ? static_cast<int>(units) : 1000000;
}

}  // namespace

namespace {

// The equivalence p-value for a band narrowed to `scale` of it (window_probe_share).
double p_unchanged_within(const QuantileComparison& qc, double scale) {
  const double up = 1 + qc.band.regression * scale, down = 1 - qc.band.improvement * scale;
  if (qc.exact.used) return std::max(qc.exact.p_below(up), qc.exact.p_above(down));
  RatioInterval r;
  r.log_center = qc.log_center;
  r.log_scale = qc.log_scale;
  r.df = qc.df >= 1 ? qc.df : 1e6;
  return std::max(r.p_below(up), r.p_above(down));
}

}  // namespace

Verdict function_verdict(const std::vector<QuantileComparison>& tests) {
  // Ranks for "the best instrument": a decided verdict above an undecided one above none.
  auto rank = [](Verdict v) {
    switch (v) {
      case Verdict::kImprovement: return 4;
      case Verdict::kUnchanged: return 3;
      case Verdict::kInconclusive: return 2;
      case Verdict::kInsufficientData: return 1;
      default: return 0;
    }
  };
  bool flagged = false;
  // A speaking test whose estimate lies past the regression band, undecided only for its width: no
  // other instrument's "unchanged" (or "faster") speaks over it. A wait doubled reads 1.4x [0.9, 2.0]
  // on a noisy window while its CPU, unchanged, reads 1.00x [0.98, 1.02]: the function is
  // inconclusive, never unchanged (a wait is latency, never judged by CPU alone). A test that may
  // only flag (the cpu/call of a function that waits) does not hold its latency's "unchanged" back.
  bool above_but_wide = false;
  Verdict worst_flag = Verdict::kImprovement;
  // Per instrument (0 latency, 1 sampled): the worst of its speaking tests; -1 none speak.
  int group[2] = {-1, -1};
  Verdict group_verdict[2] = {Verdict::kImprovement, Verdict::kImprovement};
  bool any_tested = false;
  for (const auto& q : tests) {
    if (q.verdict == Verdict::kRegression || q.verdict == Verdict::kSuspect) {
      flagged = true;
      worst_flag = worst(worst_flag, q.verdict);
    }
    any_tested = any_tested || q.tested();
    if (!q.speaks) continue;
    above_but_wide = above_but_wide || (q.verdict == Verdict::kInconclusive && q.why.kind == Why::Kind::kAboveButWide);
    const int g = q.name == kSampledTestName ? 1 : 0;
    group[g] = 1;
    group_verdict[g] = worst(group_verdict[g], q.verdict);
  }
  if (flagged) return worst_flag;
  Verdict best = Verdict::kInsufficientData;
  bool any_group = false;
  for (int g = 0; g < 2; ++g)
    if (group[g] > 0 && (!any_group || rank(group_verdict[g]) > rank(best))) {
      best = group_verdict[g];
      any_group = true;
    }
  // No test speaks (a sampled test that may only flag, and no latency test): undecided, never
  // unchanged on its word.
  if (!any_group) return any_tested ? Verdict::kInconclusive : Verdict::kInsufficientData;
  if (above_but_wide && (best == Verdict::kUnchanged || best == Verdict::kImprovement)) return Verdict::kInconclusive;
  return best;
}

void decide_test(QuantileComparison& qc, const CompareOptions& o, int tests) {
  const double alpha = (1 - o.confidence) / 2;
  const double up = 1 + qc.band.regression;
  const double down = 1 - qc.band.improvement;
  {  // the equivalence interval: the test's own, at 1 - 2 alpha_eq (two one-sided tests)
    const double q = student_t_quantile(1 - o.equivalence_alpha, qc.df >= 1 ? qc.df : 1e6);
    qc.eq_low = qc.exact.used ? qc.exact.bound(o.equivalence_alpha, -1) : std::exp(qc.log_center - q * qc.log_scale);
    qc.eq_high = qc.exact.used ? qc.exact.bound(o.equivalence_alpha, +1) : std::exp(qc.log_center + q * qc.log_scale);
  }
  qc.why = {};
  qc.why.alpha = alpha;
  qc.why.tests = tests;
  qc.why.looks = o.sequential() ? o.last_look - o.first_look + 1 : 0;
  qc.why.multiplicity = o.multiplicity;
  qc.why.equivalence_alpha = o.equivalence_alpha;
  // A latency test whose window is partly gate's probes (issue 54): its unchanged band narrowed to
  // the code's share of the window; no improvement from a window mostly probes.
  const double probe_share = std::isfinite(qc.window_probe_share) ? std::clamp(qc.window_probe_share, 0.0, 1.0) : 0.0;
  // The window's share that is not the code: the probes', or more where the samples find less code.
  const double window_share =
      std::isfinite(qc.window_code_share) ? std::max(probe_share, 1 - std::clamp(qc.window_code_share, 0.0, 1.0))
                                          : probe_share;
  if (qc.p_regression_adjusted < alpha) {
    qc.verdict = Verdict::kRegression;
  } else if (qc.p_improvement_adjusted < alpha && !(window_share > 0.5)) {
    qc.verdict = Verdict::kImprovement;
  } else if (qc.p_unchanged < o.equivalence_alpha && !(window_share > 0) ) {
    qc.verdict = Verdict::kUnchanged;
  } else if (qc.p_unchanged < o.equivalence_alpha && p_unchanged_within(qc, 1 - window_share) < o.equivalence_alpha) {
    qc.verdict = Verdict::kUnchanged;
  } else if (window_share > 0 &&
             (qc.p_unchanged < o.equivalence_alpha || qc.p_improvement_adjusted < alpha)) {
    // Unchanged (or faster) by the window, not by the code behind gate's probes.
    qc.verdict = Verdict::kInconclusive;
    qc.more_runs_would_help = window_share < 0.8;
    qc.why.kind = Why::Kind::kWindowMostlyProbes;
    qc.why.window_share = window_share;
    qc.why.probe_share = probe_share;
    qc.why.eq_past_regression = qc.eq_high > 1 + qc.band.regression * (1 - window_share);
    qc.why.eq_past_improvement = qc.eq_low < 1 - qc.band.improvement * (1 - window_share);
  } else {
    qc.more_runs_would_help = true;
    if (qc.p_regression_own < alpha) {
      // Past the threshold on its own, held back only by the other tests of the family.
      const double own_level = o.sequential() ? sequential_looks(o.first_look, o.last_look).per_look_level(alpha) : alpha;
      qc.verdict = Verdict::kSuspect;
      qc.why.kind = Why::Kind::kSuspect;
      qc.why.own_low = bound_at(qc, own_level, -1);
      qc.why.own_high = bound_at(qc, own_level, +1);
    } else if (qc.ratio > up) {
      qc.verdict = Verdict::kInconclusive;
      qc.why.kind = Why::Kind::kAboveButWide;
    } else if (qc.ratio < down) {
      qc.verdict = Verdict::kInconclusive;
      qc.why.kind = Why::Kind::kBelowButWide;
    } else {
      qc.verdict = Verdict::kInconclusive;
      qc.why.kind = Why::Kind::kEquivalenceWide;
      qc.why.eq_past_regression = qc.eq_high > up;
      qc.why.eq_past_improvement = qc.eq_low < down;
    }
  }
  estimate_power(qc, o, tests);
}

void decide_family(const std::vector<QuantileComparison*>& tests, const CompareOptions& o) {
  const double alpha = (1 - o.confidence) / 2;
  std::vector<double> p_reg, p_imp;
  for (const auto* t : tests) {
    p_reg.push_back(t->p_regression);
    p_imp.push_back(t->p_improvement);
  }
  const SequentialLooks* looks = o.sequential() ? &sequential_looks(o.first_look, o.last_look) : nullptr;
  if (looks) {
    for (double& p : p_reg) p = looks->adjust(p);
    for (double& p : p_imp) p = looks->adjust(p);
  }
  // The primary tests of multiplicity kHolmPrimaryFirst: p50 (else the first quantile compared).
  std::string primary_name = o.quantiles.empty() ? "p50" : o.quantiles.front().name;
  for (const auto& q : o.quantiles)
    if (q.name == "p50") primary_name = "p50";
  std::vector<bool> primary;
  for (const auto* t : tests) primary.push_back(t->name == primary_name);
  const auto adj_reg = adjust_p_values(p_reg, o.multiplicity, primary);
  const auto adj_imp = adjust_p_values(p_imp, o.multiplicity, primary);
  const auto levels_reg = rejection_levels(p_reg, adj_reg, o.multiplicity, alpha, primary);
  const auto levels_imp = rejection_levels(p_imp, adj_imp, o.multiplicity, alpha, primary);
  std::vector<std::pair<double, double>> per_look_cache;  // levels repeat: Holm gives every test one
  auto per_look = [&](double level) {
    if (!looks) return level;
    for (const auto& [l, v] : per_look_cache)
      if (l == level) return v;
    per_look_cache.emplace_back(level, looks->per_look_level(level));
    return per_look_cache.back().second;
  };
  const int m = static_cast<int>(tests.size());
  for (size_t i = 0; i < tests.size(); ++i) {
    QuantileComparison& qc = *tests[i];
    const double level_reg = per_look(levels_reg[i]), level_imp = per_look(levels_imp[i]);
    qc.p_regression_own = p_reg[i];
    qc.p_regression_adjusted = adj_reg[i];
    qc.p_improvement_adjusted = adj_imp[i];
    qc.ci_level_regression = level_reg;
    qc.ci_level_improvement = level_imp;
    qc.ci_low = bound_at(qc, level_reg, -1);
    qc.ci_high = bound_at(qc, level_imp, +1);
    decide_test(qc, o, m);
  }
}

}  // namespace gate::stats
