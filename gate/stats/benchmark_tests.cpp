// estimate_benchmarks: per-run benchmark values into RunSamples (point runs: a benchmark line has
// no within-run spread gate could see), then the same paired or bootstrap interval as functions.
#include "stats/benchmark_tests.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "common/fnv.hpp"
#include "common/numbers.hpp"
#include "stats/rng.hpp"

namespace gate::stats {
namespace {


// Per run: benchmark name -> unit -> the run's value (median of its repeats).
using RunValues = std::map<std::string, std::map<std::string, double>>;

std::vector<RunValues> values_of(const std::vector<RunResult>& runs, std::set<std::string>* higher_better,
                                 std::vector<BenchmarkFinding>* findings) {
  std::vector<RunValues> out;
  for (const auto& r : runs) {
    std::map<std::string, std::map<std::string, std::vector<double>>> all;
    for (const auto& b : r.benchmarks)
      for (const auto& [unit, v] : b.metrics) all[b.name][unit].push_back(v);
    RunValues rv;
    for (const auto& [name, units] : all)
      for (const auto& [unit, vs] : units) rv[name][unit] = median(vs);
    out.push_back(std::move(rv));
    higher_better->insert(r.benchmark_higher_better.begin(), r.benchmark_higher_better.end());
    for (const auto& w : r.benchmark_warnings)
      if (std::none_of(findings->begin(), findings->end(), [&](const BenchmarkFinding& f) { return f.recorded == w; }))
        findings->push_back({BenchmarkFinding::Kind::kOutputLine, "", "", w});
  }
  return out;
}

// The side's values of one metric in the form the tests take: scaled so that the 1 ns floor of
// log_ns never binds (allocs/op of 1 must not read as the floor), inverted when higher is better.
// nullopt per run that lacks it.
std::vector<std::optional<double>> series(const std::vector<RunValues>& runs, const std::string& name,
                                          const std::string& unit) {
  std::vector<std::optional<double>> out;
  for (const auto& r : runs) {
    const auto b = r.find(name);
    if (b == r.end()) {
      out.emplace_back();
      continue;
    }
    const auto u = b->second.find(unit);
    out.push_back(u == b->second.end() ? std::nullopt : std::optional<double>(u->second));
  }
  return out;
}

double side_median(const std::vector<std::optional<double>>& s) {
  std::vector<double> v;
  for (const auto& x : s)
    if (x) v.push_back(*x);
  return v.empty() ? kNaN : median(v);
}

bool all_equal(const std::vector<std::optional<double>>& a, const std::vector<std::optional<double>>& b) {
  std::optional<double> first;
  for (const auto* s : {&a, &b})
    for (const auto& x : *s) {
      if (!x) continue;
      if (!first) first = x;
      if (*x != *first) return false;
    }
  return true;
}

// Units whose value moves with the machine's speed: time per op, and throughput.
bool speed_dependent(const std::string& unit) {
  return unit == "ns/op" || unit == "cpu-ns/op" || unit == "sec/op" || (unit.size() > 2 && unit.substr(unit.size() - 2) == "/s");
}

void estimate_metric(BenchmarkMetricComparison& m, const std::vector<std::optional<double>> sides[2],
                     const CompareOptions& o, bool paired, const SpeedFactors& speed) {
  const bool normalize = speed.usable && speed_dependent(m.unit);
  QuantileComparison& qc = m.test;
  qc.name = m.unit;
  qc.band = o.thresholds.defaults;
  qc.ratio = qc.ci_low = qc.ci_high = kNaN;
  qc.p_regression = qc.p_regression_adjusted = qc.p_improvement = qc.p_improvement_adjusted = kNaN;
  RunSamples samples[2];
  for (int i = 0; i < 2; ++i) {
    for (size_t r = 0; r < sides[i].size(); ++r) {
      if (!sides[i][r]) continue;
      // x 1e6 then +1: a value of 0 (0 allocs/op) stays finite and 0 -> 1 alloc reads as a change.
      const double v = *sides[i][r] * 1e6 + 1;
      // A slow run (factor > 0) makes time larger and throughput smaller: both read "worse" in the
      // test's orientation, so the factor comes out the same way for both.
      samples[i].add_point_run(m.higher_is_better ? 1e18 / v : v, r, normalize ? speed.all[i][r] : 0.0);
    }
    (i == 0 ? qc.base_runs_used : qc.head_runs_used) = static_cast<int>(samples[i].runs());
    if (static_cast<int>(samples[i].runs()) < o.min_runs) {
      qc.too_few(Why::Kind::kTooFewMetricRuns, static_cast<int>(samples[i].runs()), o.min_runs, i == 0 ? "base" : "head");
      return;
    }
  }
  if (all_equal(sides[0], sides[1])) {  // deterministic metrics (B/op, allocs/op) that did not move
    qc.verdict = Verdict::kUnchanged;
    qc.ratio = qc.ci_low = qc.ci_high = 1;
    qc.why.kind = Why::Kind::kSameConstant;
    return;
  }
  uint64_t state = o.seed ^ fnv1a64(m.unit, fnv1a64(m.benchmark, fnv1a64("benchmark")));
  const RatioInterval r =
      ratio_over_runs(samples[0], samples[1], bootstrap_options(o, splitmix64(state)), paired, &qc.units);
  if (paired && qc.units < o.min_runs) {
    qc.too_few(Why::Kind::kTooFewMetricPairs, qc.units, o.min_runs);
    return;
  }
  fill_interval(qc, r, paired);
  m.in_family = true;
}

}  // namespace

BenchmarkComparison estimate_benchmarks(const std::vector<RunResult>& base_runs,
                                        const std::vector<RunResult>& head_runs, const CompareOptions& o,
                                        bool paired, const SpeedFactors& speed) {
  BenchmarkComparison out;
  std::set<std::string> higher;
  const std::vector<RunValues> runs[2] = {values_of(base_runs, &higher, &out.findings),
                                          values_of(head_runs, &higher, &out.findings)};
  std::map<std::string, std::set<std::string>> units[2];  // name -> units, per side
  for (int i = 0; i < 2; ++i)
    for (const auto& r : runs[i])
      for (const auto& [name, us] : r)
        for (const auto& [unit, v] : us) units[i][name].insert(unit);
  for (const auto& [name, us] : units[0])
    if (!units[1].count(name)) out.only_in_base.push_back(name);
  for (const auto& [name, us] : units[1])
    if (!units[0].count(name)) out.only_in_head.push_back(name);
  for (const auto& [name, base_units] : units[0]) {
    const auto h = units[1].find(name);
    if (h == units[1].end()) continue;
    for (const auto& unit : base_units) {
      if (!h->second.count(unit)) {
        out.findings.push_back({BenchmarkFinding::Kind::kUnitOnlyInBase, name, unit});
        continue;
      }
      BenchmarkMetricComparison m;
      m.benchmark = name;
      m.unit = unit;
      m.higher_is_better = higher.count(unit) > 0;
      const std::vector<std::optional<double>> s[2] = {series(runs[0], name, unit), series(runs[1], name, unit)};
      m.base_value = side_median(s[0]);
      m.head_value = side_median(s[1]);
      estimate_metric(m, s, o, paired, speed);
      out.metrics.push_back(std::move(m));
    }
    for (const auto& unit : h->second)
      if (!base_units.count(unit)) out.findings.push_back({BenchmarkFinding::Kind::kUnitOnlyInHead, name, unit});
  }
  return out;
}

BenchmarkSource benchmark_source(const std::vector<RunResult>& runs) {
  BenchmarkSource s;
  for (const auto& r : runs) {
    if (r.benchmarks.empty()) continue;
    ++s.runs;
    if (r.clean_executions > 0) {
      ++s.clean_runs;
      s.clean_executions += r.clean_executions;
      s.probed_executions += r.probed_executions;
    }
  }
  return s;
}

}  // namespace gate::stats
