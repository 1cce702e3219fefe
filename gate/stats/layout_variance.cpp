// Between-layout variance components (one-way random-effects ANOVA) and the widened intervals.
#include "stats/layout_variance.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "stats/benchmark_tests.hpp"
#include "stats/distributions.hpp"
#include "stats/instrument.hpp"
#include "stats/speed.hpp"

namespace gate::stats {

double LayoutComponents::share() const {
  if (!estimable() || !(between + within > 0)) return 0;
  return between / (between + within);
}

namespace {

struct Groups {
  std::map<int, std::vector<double>> by_layout;
  int n = 0;
};

Groups group(const std::vector<double>& values, const std::vector<int>& layout) {
  Groups g;
  for (size_t i = 0; i < values.size() && i < layout.size(); ++i) {
    if (layout[i] < 0 || std::isnan(values[i])) continue;
    g.by_layout[layout[i]].push_back(values[i]);
    ++g.n;
  }
  return g;
}

// sum over layouts of n_g^2 / N^2: the weight of the between-layout component in the variance of
// the plain mean over all units (1 / K when balanced).
double cluster_weight(const std::vector<double>& values, const std::vector<int>& layout) {
  const Groups g = group(values, layout);
  if (g.n == 0) return 0;
  double s = 0;
  for (const auto& [l, v] : g.by_layout) s += static_cast<double>(v.size()) * static_cast<double>(v.size());
  return s / (static_cast<double>(g.n) * static_cast<double>(g.n));
}

// Per unit pair the log head/base ratio of the function's sampled CPU time per call, each side's
// speed factor taken out as stats::sampled_test does; NaN where a side has no value, or for units
// smaller than their side's largest (the first pair, when gate ab grew its units after it), which
// the sampled test leaves out too.
std::vector<double> sampled_log_ratios(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                       const std::string& function, const SpeedFactors& speed) {
  const size_t n = std::min(base_runs.size(), head_runs.size());
  std::vector<double> values(n, std::nan(""));
  int largest[2] = {1, 1};
  for (const auto& r : base_runs) largest[0] = std::max(largest[0], sampled_executions_of(r));
  for (const auto& r : head_runs) largest[1] = std::max(largest[1], sampled_executions_of(r));
  for (size_t i = 0; i < n; ++i) {
    if (sampled_executions_of(base_runs[i]) < largest[0] || sampled_executions_of(head_runs[i]) < largest[1]) continue;
    const FunctionRun* b = base_runs[i].find(function);
    const FunctionRun* h = head_runs[i].find(function);
    if (!b || !h) continue;
    const double bv = sampled_ns_per_call(base_runs[i], *b), hv = sampled_ns_per_call(head_runs[i], *h);
    if (!(bv > 0) || !(hv > 0)) continue;
    values[i] = std::log(hv) - std::log(bv);
    if (speed.usable && i < speed.all[0].size() && i < speed.all[1].size()) values[i] -= speed.all[1][i] - speed.all[0][i];
  }
  return values;
}

}  // namespace

LayoutComponents layout_components(const std::vector<double>& values, const std::vector<int>& layout) {
  const Groups g = group(values, layout);
  LayoutComponents c;
  c.layouts = static_cast<int>(g.by_layout.size());
  c.units = g.n;
  if (!c.estimable()) return c;
  const double n = g.n, k = c.layouts;
  double grand = 0;
  for (const auto& [l, v] : g.by_layout)
    for (double x : v) grand += x / n;
  double ssb = 0, ssw = 0, sum_n2 = 0;
  for (const auto& [l, v] : g.by_layout) {
    double mean = 0;
    for (double x : v) mean += x / static_cast<double>(v.size());
    ssb += static_cast<double>(v.size()) * (mean - grand) * (mean - grand);
    for (double x : v) ssw += (x - mean) * (x - mean);
    sum_n2 += static_cast<double>(v.size()) * static_cast<double>(v.size());
  }
  const double msb = ssb / (k - 1), msw = ssw / (n - k);
  const double n0 = (n - sum_n2 / n) / (k - 1);  // units per layout, for unequal layouts
  c.within = msw;
  c.between = n0 > 0 ? std::max(0.0, (msb - msw) / n0) : 0.0;
  return c;
}

LayoutWidening widen_for_layouts(double log_scale, double df, const LayoutComponents& c, double weight) {
  LayoutWidening w{log_scale, df, 1};
  if (!c.estimable() || !(c.between > 0) || !(log_scale > 0)) return w;
  const double a = log_scale * log_scale;
  const double b = c.between * (weight > 0 ? weight : 1.0 / c.layouts);
  const double df_a = df >= 1 ? df : 1e6, df_b = c.layouts - 1;
  w.log_scale = std::sqrt(a + b);
  w.df = (a + b) * (a + b) / (a * a / df_a + b * b / df_b);
  w.factor = w.log_scale / log_scale;
  return w;
}

void widen_test(QuantileComparison& qc, const LayoutComponents& c, const CompareOptions& o, double weight) {
  qc.layouts.layouts = c.layouts;
  qc.layouts.share = c.share();
  const LayoutWidening w = widen_for_layouts(qc.log_scale, qc.df, c, weight);
  qc.layouts.factor = w.factor;
  if (!(w.factor > 1)) return;
  qc.log_scale = w.log_scale;
  qc.df = w.df;
  qc.noise = qc.log_scale * std::sqrt(static_cast<double>(std::max(qc.units, 1)));
  const double t = student_t_quantile(1 - (1 - o.confidence) / 2, qc.df);
  qc.raw_ci_low = qc.ci_low = std::exp(qc.log_center - t * qc.log_scale);
  qc.raw_ci_high = qc.ci_high = std::exp(qc.log_center + t * qc.log_scale);
  auto above = [&](double bound) { return student_t_upper_tail((qc.log_center - std::log(bound)) / qc.log_scale, qc.df); };
  auto below = [&](double bound) { return student_t_cdf((qc.log_center - std::log(bound)) / qc.log_scale, qc.df); };
  qc.p_regression = qc.p_regression_own = above(1 + qc.band.regression);
  qc.p_improvement = below(1 - qc.band.improvement);
  qc.p_unchanged = std::max(below(1 + qc.band.regression), above(1 - qc.band.improvement));
}

std::vector<std::pair<std::string, double>> widen_for_layouts(Comparison& c, const std::vector<RunResult>& base_runs,
                                                              const std::vector<RunResult>& head_runs,
                                                              const CompareOptions& o) {
  std::vector<std::pair<std::string, double>> shares;
  const size_t n = std::min(base_runs.size(), head_runs.size());
  std::vector<int> layout(n, -1);
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    const int b = base_runs[i].layout, h = head_runs[i].layout;
    if (b < 0 && h < 0) continue;
    layout[i] = std::max(b, 0) * 1000 + std::max(h, 0);  // the pair's layouts as one cluster
    any = true;
  }
  if (!any) return shares;
  // The speed factors' function order: the sorted names both sides' runs hold (stats::speed_factors).
  const SpeedFactors speed = c.speed_normalized ? speed_factors(base_runs, head_runs, o) : SpeedFactors{};
  std::set<std::string> base_names, head_names;
  for (const auto& r : base_runs)
    for (const auto& f : r.functions) base_names.insert(f.name);
  for (const auto& r : head_runs)
    for (const auto& f : r.functions) head_names.insert(f.name);
  std::vector<std::string> names;
  std::set_intersection(base_names.begin(), base_names.end(), head_names.begin(), head_names.end(),
                        std::back_inserter(names));
  for (auto& f : c.functions) {
    const auto at = std::lower_bound(names.begin(), names.end(), f.name);
    const size_t fi = static_cast<size_t>(at - names.begin());
    double share = -1;
    for (auto& q : f.quantiles) {
      if (!q.tested()) continue;
      if (q.name == kSampledTestName) {  // the sampled instrument: its cpu/call per unit pair
        const std::vector<double> values = sampled_log_ratios(base_runs, head_runs, f.name, speed);
        const LayoutComponents lc = layout_components(values, layout);
        widen_test(q, lc, o, cluster_weight(values, layout));
        if (lc.estimable()) share = std::max(share, q.layouts.share);
        continue;
      }
      const auto spec_it = std::find_if(o.quantiles.begin(), o.quantiles.end(),
                                        [&](const QuantileSpec& s) { return s.name == q.name; });
      if (spec_it == o.quantiles.end()) continue;
      const QuantileSpec spec = *spec_it;
      const uint64_t need = min_calls_per_run(spec, o.min_tail_calls);
      std::vector<double> values(n, std::nan(""));
      for (size_t i = 0; i < n; ++i) {
        const FunctionRun* b = base_runs[i].find(f.name);
        const FunctionRun* h = head_runs[i].find(f.name);
        if (!b || !h || b->calls < need || h->calls < need) continue;
        const double bv = spec.is_mean ? b->mean_ns() : b->quantile_ns(spec.q);
        const double hv = spec.is_mean ? h->mean_ns() : h->quantile_ns(spec.q);
        values[i] = std::log(std::max(hv, 1.0)) - std::log(std::max(bv, 1.0));
        if (speed.usable && at != names.end() && *at == f.name)
          values[i] -= speed.leave_out(1, i, fi) - speed.leave_out(0, i, fi);
      }
      const LayoutComponents lc = layout_components(values, layout);
      widen_test(q, lc, o, cluster_weight(values, layout));
      if (lc.estimable()) share = std::max(share, q.layouts.share);
    }
    if (share >= 0) shares.emplace_back(f.name, share);
  }
  return shares;
}

}  // namespace gate::stats
