// judge_benchmarks: estimate the benchmark metrics (stats/benchmark_tests), then adjust every test of the
// comparison in one family and re-decide, as stats::compare's decide_all does for functions alone.
#include "verdict/benchmark_family.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "stats/benchmark_tests.hpp"
#include "stats/family.hpp"
#include "stats/instrument.hpp"
#include "verdict/exit_code.hpp"
#include "verdict/instruments.hpp"

namespace gate::verdict {
namespace {

bool has_benchmarks(const std::vector<RunResult>& runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunResult& r) { return !r.benchmarks.empty() || !r.benchmark_warnings.empty(); });
}

// Every test of the family, in one order, with where its adjusted p-values go.
std::vector<stats::QuantileComparison*> family_of(stats::Comparison& c) {
  std::vector<stats::QuantileComparison*> tests;
  for (auto& f : c.functions)
    for (auto& q : f.quantiles)
      if (q.tested()) tests.push_back(&q);
  if (c.common_shift_tested) tests.push_back(&c.common_shift);
  for (auto& m : c.benchmarks.metrics)
    if (m.in_family) tests.push_back(&m.test);
  return tests;
}

double worst_ratio(const std::vector<const stats::QuantileComparison*>& qs) {
  double k = -std::numeric_limits<double>::infinity();
  for (const auto* q : qs)
    if (q->tested() && !std::isnan(q->ratio)) k = std::max(k, q->ratio);
  return k;
}

void redecide_functions(stats::Comparison& c) {
  c.counts = {};
  for (auto& f : c.functions) {
    f.verdict = stats::function_verdict(f.quantiles);
    if (f.calls_failed) f.verdict = stats::Verdict::kRegression;
    ++c.counts[f.verdict];
  }
  auto key = [](const stats::FunctionComparison& f) {
    std::vector<const stats::QuantileComparison*> qs;
    for (const auto& q : f.quantiles) qs.push_back(&q);
    return worst_ratio(qs);
  };
  std::stable_sort(c.functions.begin(), c.functions.end(), [&](const auto& a, const auto& b) {
    if (a.verdict != b.verdict) return a.verdict < b.verdict;
    const double ka = key(a), kb = key(b);
    if (ka != kb) return ka > kb;
    return a.name < b.name;
  });
  auto& bm = c.benchmarks;
  bm.counts = {};
  for (const auto& m : bm.metrics) ++bm.counts[m.test.verdict];
  std::stable_sort(bm.metrics.begin(), bm.metrics.end(), [](const auto& a, const auto& b) {
    if (a.test.verdict != b.test.verdict) return a.test.verdict < b.test.verdict;
    const double ka = worst_ratio({&a.test}), kb = worst_ratio({&b.test});
    if (ka != kb) return ka > kb;
    return std::tie(a.benchmark, a.unit) < std::tie(b.benchmark, b.unit);
  });
}

// How each side's units folded their executions' time per op (kBenchmarkFoldKey), and a finding
// when they differ where a unit had several executions: a result written before gate took a
// unit's fastest execution holds the mean, which reads slower than the fastest by the executions'
// spread (a baseline recorded then makes the head look faster than it is).
void mark_benchmark_folds(stats::Comparison& c, const ResultFile& base_meta, const ResultFile& head_meta) {
  auto& bm = c.benchmarks;
  auto fastest = [](const ResultFile& r) {
    const auto it = r.extra.find(kBenchmarkFoldKey);
    return it != r.extra.end() && it->second == kBenchmarkFoldFastest;
  };
  bm.base_source.fastest = fastest(base_meta);
  bm.head_source.fastest = fastest(head_meta);
  if (bm.base_source.fastest == bm.head_source.fastest || bm.metrics.empty()) return;
  const stats::BenchmarkSource& older = bm.base_source.fastest ? bm.head_source : bm.base_source;
  if (older.clean_executions > older.clean_runs || (older.clean_runs == 0 && older.runs > 0))
    bm.findings.push_back({stats::BenchmarkFinding::Kind::kFoldDiffers, "", "", bm.base_source.fastest ? "head" : "base"});
}

// A wall-time metric left undecided where no CPU time per op was measured beside it: a finding
// that says why it is noisy and what measures past the noise (benchmark_cpu). Measured on a
// 2-vCPU VM with a build and two bursty processes beside it (docs/how-it-measures.md): ns/op's
// noise a pair 5-50% whatever a unit kept of its executions, cpu-ns/op's 1-4%.
void mark_wall_time_undecided(stats::Comparison& c) {
  auto& bm = c.benchmarks;
  std::set<std::string> benchmarks, with_cpu;
  for (const auto& m : bm.metrics) {
    benchmarks.insert(m.benchmark);
    if (m.unit == kCpuNsPerOp) with_cpu.insert(m.benchmark);
  }
  for (const auto& m : bm.metrics) {
    const auto v = m.test.verdict;
    if ((m.unit != "ns/op" && m.unit != "sec/op") || with_cpu.count(m.benchmark) || !m.in_family ||
        (v != stats::Verdict::kInconclusive && v != stats::Verdict::kSuspect))
      continue;
    stats::BenchmarkFinding f{stats::BenchmarkFinding::Kind::kWallTimeUndecided, m.benchmark, m.unit};
    f.noise = m.test.noise;
    f.only_benchmark = benchmarks.size() == 1;
    bm.findings.push_back(std::move(f));
  }
}

}  // namespace

void judge_benchmarks(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                      const std::vector<RunResult>& head_runs, const stats::CompareOptions& o) {
  if (!has_benchmarks(base_runs) && !has_benchmarks(head_runs)) return;
  c.benchmarks = stats::estimate_benchmarks(base_runs, head_runs, o, c.paired, stats::speed_factors(base_runs, head_runs, o));
  auto& bm = c.benchmarks;
  bm.base_source = stats::benchmark_source(base_runs);
  bm.head_source = stats::benchmark_source(head_runs);
  if (!has_benchmarks(base_runs) || !has_benchmarks(head_runs))
    bm.without_results = has_benchmarks(base_runs) ? "head" : "base";

  redecide(c, o);
  c.method_facts.with_benchmarks = true;
}

void redecide(stats::Comparison& c, const stats::CompareOptions& o) {
  const auto tests = family_of(c);
  c.tests = static_cast<int>(tests.size());
  stats::decide_family(tests, o);
  redecide_functions(c);
  c.exit_code = exit_code(c, o.fail_on_suspect);
}

stats::Comparison compare_with_benchmarks(const std::vector<RunResult>& base_runs,
                                          const std::vector<RunResult>& head_runs, const ResultFile& base_meta,
                                          const ResultFile& head_meta, const stats::CompareOptions& o) {
  // A pilot pair is in no test (RunResult::pilot); the instruments are chosen with it.
  std::vector<RunResult> base, head;
  const bool pilots = without_pilot_pairs(base_runs, head_runs, base, head);
  const std::vector<RunResult>& tb = pilots ? base : base_runs;
  const std::vector<RunResult>& th = pilots ? head : head_runs;
  stats::Comparison c = stats::compare(tb, th, base_meta, head_meta, o);
  judge_instruments(c, base_runs, head_runs, o, stats::probe_cost_per_call(base_meta, head_meta), &tb, &th);
  judge_benchmarks(c, tb, th, o);
  mark_benchmark_folds(c, base_meta, head_meta);
  mark_wall_time_undecided(c);
  c.exit_code = exit_code(c, o.fail_on_suspect);
  return c;
}

}  // namespace gate::verdict
