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
#include "stats/benchmark_modes.hpp"
#include "stats/distributions.hpp"
#include "stats/rng.hpp"

namespace gate::stats {
namespace {


// One metric of one benchmark in a run: the run's value (the median of its repeats) and the values
// of each execution it was folded from (one value when the run kept none: a single execution).
struct MetricRun {
  double value = 0;
  std::vector<double> executions;
};
// Per run: benchmark name -> unit -> the metric.
using RunValues = std::map<std::string, std::map<std::string, MetricRun>>;

std::vector<RunValues> values_of(const std::vector<RunResult>& runs, std::set<std::string>* higher_better,
                                 std::vector<BenchmarkFinding>* findings) {
  std::vector<RunValues> out;
  for (const auto& r : runs) {
    std::map<std::string, std::map<std::string, std::pair<std::vector<double>, std::vector<double>>>> all;
    for (const auto& b : r.benchmarks)
      for (const auto& [unit, v] : b.metrics) {
        auto& [values, executions] = all[b.name][unit];
        values.push_back(v);
        if (const auto* e = b.executions_of(unit)) executions.insert(executions.end(), e->begin(), e->end());
        else executions.push_back(v);
      }
    RunValues rv;
    for (const auto& [name, units] : all)
      for (const auto& [unit, ve] : units) rv[name][unit] = {median(ve.first), ve.second};
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
    out.push_back(u == b->second.end() ? std::nullopt : std::optional<double>(u->second.value));
  }
  return out;
}

// The side's executions of one metric, per run (empty where the run lacks it).
std::vector<std::vector<double>> executions(const std::vector<RunValues>& runs, const std::string& name,
                                            const std::string& unit) {
  std::vector<std::vector<double>> out(runs.size());
  for (size_t r = 0; r < runs.size(); ++r)
    if (const auto b = runs[r].find(name); b != runs[r].end())
      if (const auto u = b->second.find(unit); u != b->second.end()) out[r] = u->second.executions;
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

// A value as the tests take it: x 1e6 then +1, so that a value of 0 (0 allocs/op) stays finite and
// 0 -> 1 alloc reads as a change; inverted when higher is better, so that > 1 is always worse.
double oriented(double v, bool higher_is_better) {
  const double x = v * 1e6 + 1;
  return higher_is_better ? 1e18 / x : x;
}

// The smallest step Go prints a metric's value in (testing's prettyPrint: four significant digits
// down to 1e-9, whole numbers from 999.95; MB/s with two decimals), relative to the value. An
// interval narrower than this says more than the figures hold ("0.999 [0.999, 0.999]" in an A/A
// of identical fastest executions): intervals are floored at it.
double relative_resolution(double v, const std::string& unit) {
  const double y = std::fabs(v);
  if (!(y > 0) || !std::isfinite(y)) return 0;
  double step = 1;
  if (unit == "MB/s") step = 0.01;
  else if (y < 999.95) step = std::pow(10.0, std::floor(std::log10(y / 0.99995)) - 3);
  return step / y;
}

void floor_at_resolution(RatioInterval& r, double relative, double confidence) {
  if (!(relative > 0)) return;
  const double half = std::log1p(relative);
  const double t = student_t_quantile(1 - (1 - confidence) / 2, r.df > 0 ? r.df : 1e6);
  if (r.log_scale * t >= half) return;
  r.log_scale = half / t;
  r.ci_low = std::exp(r.log_center - half);
  r.ci_high = std::exp(r.log_center + half);
}

// A side's runs of one metric as the test's samples: `values` per run (nullopt: not in that run).
RunSamples samples_of(const std::vector<std::optional<double>>& values, bool higher_is_better, bool normalize,
                      const SpeedFactors& speed, int side) {
  RunSamples out;
  for (size_t r = 0; r < values.size(); ++r)
    if (values[r] && std::isfinite(*values[r]))
      // A slow run (factor > 0) makes time larger and throughput smaller: both read "worse" in the
      // test's orientation, so the factor comes out the same way for both.
      out.add_point_run(oriented(*values[r], higher_is_better), r, normalize ? speed.all[side][r] : 0.0);
  return out;
}

// The modes across executions of one time or throughput metric (stats/benchmark_modes.hpp) and
// the fold each unit's executions are compared by. Without modes each unit's fastest execution
// decides, as the runs hold it (results/unit_merge.cpp: immune to a neighbour's bursts, which only add
// time). A benchmark whose processes run at one of two speeds breaks that fold: the fastest
// execution of a unit sees only the fast mode, so it reported one mode's move as the benchmark's
// (issue 54: 0.91x on the fast mode where paired runs without gate read 0.98x [0.94, 1.03] over
// processes, its slow mode 1.06x). So where a side's executions show modes:
//   - each mode's own change is measured (the units' best execution in that mode);
//   - every unit is also folded mode by mode (fold_per_mode: each mode's best execution, weighed by
//     its share of the unit's executions), which follows the processes' mix as runs without gate do;
//   - that fold decides when the modes moved apart (their changes differ by more than the band),
//     when the fastest fold's ratio lies outside its interval (the mix of modes moved), or when the
//     modes were found in another metric of the benchmark only (cpu-ns/op's, where ns/op blurs
//     them); otherwise the fastest fold decides and the report says it rests on the fast mode.
// Returns the interval that decides; `fastest` is the fastest fold's.
// Modes another metric of the same benchmark found on a side (its executions labelled), for a
// metric whose own values blur them: ns/op stretched by other processes on the CPUs while cpu-ns/op
// keeps the process's two speeds apart. An execution has one mode whatever the metric.
struct SharedModes {
  const ModeLabels* labels[2] = {nullptr, nullptr};
  std::string apart_in;  // the metric whose modes moved apart ("" none)
};

// The side's split of one metric's executions (find_modes over all of them).
ModeSplit split_of(const std::vector<std::vector<double>>& execs, double min_ratio) {
  std::vector<double> pool;
  for (const auto& e : execs) pool.insert(pool.end(), e.begin(), e.end());
  return find_modes(pool, min_ratio);
}

bool same_shape(const ModeLabels& labels, const std::vector<std::vector<double>>& execs) {
  if (labels.size() != execs.size()) return false;
  for (size_t r = 0; r < execs.size(); ++r)
    if (labels[r].size() != execs[r].size()) return false;
  return true;
}

RatioInterval judge_modes(BenchmarkMetricComparison& m, const std::vector<std::vector<double>> execs[2],
                          const SharedModes& shared, const RatioInterval& fastest, const CompareOptions& o,
                          bool paired, bool normalize, const SpeedFactors& speed, uint64_t seed) {
  BenchmarkModes& md = m.modes;
  const double min_ratio = 1 + std::max(m.test.band.regression, m.test.band.improvement);
  const ModeSplit split[2] = {split_of(execs[0], min_ratio), split_of(execs[1], min_ratio)};
  // Each side's executions labelled: by its own modes; else by another metric's of the benchmark;
  // else by the other side's split of this metric (its executions may all lie in one of the other
  // side's modes: a mix that moved); else all in one mode.
  ModeLabels labels[2];
  bool found[2] = {false, false};
  bool borrowed = false;  // this metric's own values do not show the modes another metric labelled
  for (int i = 0; i < 2; ++i) {
    if (split[i].found) {
      labels[i] = label_modes(execs[i], split[i], m.higher_is_better);
      found[i] = true;
    } else if (shared.labels[i] && same_shape(*shared.labels[i], execs[i])) {
      labels[i] = *shared.labels[i];
      found[i] = borrowed = true;
    }
  }
  md.base_found = found[0];
  md.head_found = found[1];
  md.borrowed = borrowed;
  if (!found[0] && !found[1]) return fastest;
  for (int i = 0; i < 2; ++i)
    if (!found[i]) labels[i] = split[1 - i].found ? label_modes(execs[i], split[1 - i], m.higher_is_better) : ModeLabels{};

  std::vector<std::optional<double>> every[2], best[2][2];  // [side][mode] per run
  BenchmarkMode modes[2];                                    // 0: the fast mode
  double log_sum[2][2] = {{0, 0}, {0, 0}};
  for (int i = 0; i < 2; ++i) {
    int total = 0;
    for (size_t r = 0; r < execs[i].size(); ++r) {
      const auto& e = execs[i][r];
      const std::span<const int> l = r < labels[i].size() ? std::span<const int>(labels[i][r]) : std::span<const int>();
      double b[2];
      const double v = e.empty() ? kNaN : fold_per_mode(e, l, m.higher_is_better, b);
      every[i].push_back(std::isfinite(v) ? std::optional<double>(v) : std::nullopt);
      for (int k = 0; k < 2; ++k)
        best[i][k].push_back(!e.empty() && std::isfinite(b[k]) ? std::optional<double>(b[k]) : std::nullopt);
      for (size_t x = 0; x < e.size(); ++x) {
        if (!(e[x] > 0)) continue;
        const int k = x < l.size() ? l[x] : 0;
        ++(i == 0 ? modes[k].base_executions : modes[k].head_executions);
        log_sum[i][k] += std::log(e[x]);
        ++total;
      }
    }
    for (int k = 0; k < 2; ++k) {
      auto& x = modes[k];
      const int n = i == 0 ? x.base_executions : x.head_executions;
      (i == 0 ? x.base_value : x.head_value) = n ? std::exp(log_sum[i][k] / n) : 0;
      (i == 0 ? x.base_share : x.head_share) = total ? static_cast<double>(n) / total : 0;
    }
  }
  // Each mode's change over the units that hold it (unpaired: a pair's two units need not both).
  RatioInterval per_mode[2];
  bool measured[2] = {false, false};
  for (int k = 0; k < 2; ++k) {
    auto& x = modes[k];
    x.ratio = x.ci_low = x.ci_high = kNaN;
    const RunSamples b = samples_of(best[0][k], m.higher_is_better, normalize, speed, 0);
    const RunSamples h = samples_of(best[1][k], m.higher_is_better, normalize, speed, 1);
    x.base_units = static_cast<int>(b.runs());
    x.head_units = static_cast<int>(h.runs());
    if (b.runs() < 3 || h.runs() < 3) continue;
    uint64_t state = seed ^ (0x6d6f6465ULL + static_cast<uint64_t>(k));
    per_mode[k] = bootstrap_ratio(b, h, bootstrap_options(o, splitmix64(state)));
    floor_at_resolution(per_mode[k], std::max(relative_resolution(x.base_value, m.unit), relative_resolution(x.head_value, m.unit)),
                        o.confidence);
    x.ratio = per_mode[k].ratio;
    x.ci_low = per_mode[k].ci_low;
    x.ci_high = per_mode[k].ci_high;
    measured[k] = true;
  }
  if (!shared.apart_in.empty()) {
    md.apart = true;  // the same executions' modes moved apart in another metric of the benchmark
    md.apart_in = shared.apart_in;
  } else if (measured[0] && measured[1]) {
    const double d = std::fabs(per_mode[0].log_center - per_mode[1].log_center);
    const double se = std::hypot(per_mode[0].log_scale, per_mode[1].log_scale);
    const double df = std::max(1.0, std::min(per_mode[0].df > 0 ? per_mode[0].df : 1e6, per_mode[1].df > 0 ? per_mode[1].df : 1e6));
    md.apart = d - student_t_quantile(1 - (1 - o.confidence) / 2, df) * se > std::log(min_ratio);
  }
  md.modes = {modes[0], modes[1]};  // the fast mode first

  RunSamples samples[2] = {samples_of(every[0], m.higher_is_better, normalize, speed, 0),
                           samples_of(every[1], m.higher_is_better, normalize, speed, 1)};
  int units = 0;
  uint64_t state = seed ^ 0x65766572ULL;
  const RatioInterval all = ratio_over_runs(samples[0], samples[1], bootstrap_options(o, splitmix64(state)), paired, &units);
  const bool usable = units >= o.min_runs;
  const bool mix_moved = usable && (fastest.ratio < all.ci_low || fastest.ratio > all.ci_high);
  // Borrowed modes: this metric's own fastest execution cannot be told to be a fast-mode one, so
  // its fold follows the executions' modes as the other metric labelled them.
  if (usable && (md.apart || mix_moved || borrowed)) {
    md.fold = BenchmarkModes::Fold::kEveryMode;
    m.base_value = side_median(every[0]);  // the table's base -> head: the fold that decides
    m.head_value = side_median(every[1]);
    md.other_ratio = fastest.ratio;
    md.other_low = fastest.ci_low;
    md.other_high = fastest.ci_high;
    m.test.units = units;
    return all;
  }
  md.fold = BenchmarkModes::Fold::kFastestMode;
  if (usable) {
    md.other_ratio = all.ratio;
    md.other_low = all.ci_low;
    md.other_high = all.ci_high;
  } else {
    md.other_ratio = md.other_low = md.other_high = kNaN;
  }
  return fastest;
}

void estimate_metric(BenchmarkMetricComparison& m, const std::vector<std::optional<double>> sides[2],
                     const std::vector<std::vector<double>> execs[2], const SharedModes& shared,
                     const CompareOptions& o, bool paired, const SpeedFactors& speed) {
  const bool normalize = speed.usable && speed_dependent(m.unit);
  QuantileComparison& qc = m.test;
  qc.name = m.unit;
  qc.band = o.thresholds.defaults;
  qc.ratio = qc.ci_low = qc.ci_high = kNaN;
  qc.p_regression = qc.p_regression_adjusted = qc.p_improvement = qc.p_improvement_adjusted = kNaN;
  RunSamples samples[2];
  for (int i = 0; i < 2; ++i) {
    samples[i] = samples_of(sides[i], m.higher_is_better, normalize, speed, i);
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
  const uint64_t seed = splitmix64(state);
  RatioInterval r = ratio_over_runs(samples[0], samples[1], bootstrap_options(o, seed), paired, &qc.units);
  if (paired && qc.units < o.min_runs) {
    qc.too_few(Why::Kind::kTooFewMetricPairs, qc.units, o.min_runs);
    return;
  }
  if (speed_dependent(m.unit)) r = judge_modes(m, execs, shared, r, o, paired, normalize, speed, seed);
  floor_at_resolution(r, std::max(relative_resolution(m.base_value, m.unit), relative_resolution(m.head_value, m.unit)),
                      o.confidence);
  fill_interval(qc, r, paired);
  m.in_family = true;
}

}  // namespace

BenchmarkComparison estimate_benchmarks(const std::vector<RunResult>& base_runs,
                                        const std::vector<RunResult>& head_runs, const CompareOptions& o,
                                        bool paired, const SpeedFactors& speed) {
  BenchmarkComparison out;
  // Benchmark figures from clean executions (no probe attached) are not divided by the runs' speed
  // factors: those are the probed executions' functions, other executions of the unit, and this
  // machine's speed swings on a 0.1-1 s timescale. And where the head's change is what slows every
  // function (a head that busy-waits is descheduled more), the factor is the change itself:
  // gobench_e2e's 4x Checkout read 1.74x [0.52, 6.17] once, its functions 1.31x together; the
  // same results without the factor read 3.4-4.4x, lower bounds 2.3-3.1, in 6 of 6 tries (with
  // it 3.0-5.2x, lower bounds 1.16-2.79). Figures taken in the probed executions keep it.
  const bool clean = benchmark_source(base_runs).clean_runs > 0 || benchmark_source(head_runs).clean_runs > 0;
  const SpeedFactors none;
  const SpeedFactors& by_speed = clean ? none : speed;
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
    // Per side, the clearest modes any time or throughput metric of this benchmark shows (the
    // largest separation), as labels of its executions for the metrics that blur them.
    // That clearest metric (over both sides) is judged first: when its modes moved apart, every
    // metric of the benchmark is decided over every mode (the same executions moved apart).
    ModeLabels shared_labels[2];
    SharedModes shared;
    std::string clearest_unit;
    double clearest_all = 0;
    for (int i = 0; i < 2; ++i) {
      double clearest = 0;
      for (const auto& unit : i == 0 ? base_units : h->second) {
        if (!speed_dependent(unit) || !base_units.count(unit) || !h->second.count(unit)) continue;
        const ModeSplit sp = split_of(executions(runs[i], name, unit), 1 + std::max(o.thresholds.defaults.regression,
                                                                                     o.thresholds.defaults.improvement));
        if (!sp.found) continue;
        if (sp.separation > clearest_all) {
          clearest_all = sp.separation;
          clearest_unit = unit;
        }
        if (sp.separation <= clearest) continue;
        clearest = sp.separation;
        shared_labels[i] = label_modes(executions(runs[i], name, unit), sp, higher.count(unit) > 0);
        shared.labels[i] = &shared_labels[i];
      }
    }
    std::vector<std::string> order(base_units.begin(), base_units.end());
    if (!clearest_unit.empty())
      std::stable_partition(order.begin(), order.end(), [&](const std::string& u) { return u == clearest_unit; });
    for (const auto& unit : order) {
      if (!h->second.count(unit)) {
        out.findings.push_back({BenchmarkFinding::Kind::kUnitOnlyInBase, name, unit});
        continue;
      }
      BenchmarkMetricComparison m;
      m.benchmark = name;
      m.unit = unit;
      m.higher_is_better = higher.count(unit) > 0;
      const std::vector<std::optional<double>> s[2] = {series(runs[0], name, unit), series(runs[1], name, unit)};
      const std::vector<std::vector<double>> e[2] = {executions(runs[0], name, unit), executions(runs[1], name, unit)};
      m.base_value = side_median(s[0]);
      m.head_value = side_median(s[1]);
      estimate_metric(m, s, e, shared, o, paired, by_speed);
      if (unit == clearest_unit && m.modes.apart && !m.modes.apart_in.size()) shared.apart_in = unit;
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
