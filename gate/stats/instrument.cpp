// The instrument of each function and the sampled instrument's test (stats/instrument.hpp).
#include "stats/instrument.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "common/error.hpp"
#include "common/fnv.hpp"
#include "common/numbers.hpp"
#include "stats/benchmark_tests.hpp"
#include "stats/distributions.hpp"
#include "stats/rng.hpp"

namespace gate::stats {

std::string_view to_string(Instrument i) {
  switch (i) {
    case Instrument::kSamples: return "samples";
    case Instrument::kBoth: return "probes+samples";
    default: return "probes";
  }
}

std::string_view to_string(MeasureSetting m) {
  switch (m) {
    case MeasureSetting::kProbes: return "probes";
    case MeasureSetting::kSamples: return "samples";
    default: return "auto";
  }
}

MeasureSetting parse_measure_setting(const std::string& s) {
  if (s == "auto") return MeasureSetting::kAuto;
  if (s == "probes") return MeasureSetting::kProbes;
  if (s == "samples") return MeasureSetting::kSamples;
  throw Error::make("measure: " + s, "is not an instrument", "write measure: auto, probes or samples", ExitCode::kUsage);
}

std::vector<const RunResult*> fact_units(const std::vector<RunResult>& runs) {
  std::vector<const RunResult*> out;
  for (const auto& r : runs)
    if (r.pilot) out.push_back(&r);
  if (out.empty() && !runs.empty()) out.push_back(&runs.front());
  return out;
}

double probe_cost_per_call(const ResultFile& base_meta, const ResultFile& head_meta) {
  double sum = 0;
  int n = 0;
  for (const ResultFile* r : {&base_meta, &head_meta})
    if (r->context.probe_cost_ns > 0) {
      sum += r->context.probe_cost_ns;
      ++n;
    }
  return n ? sum / n : kNaN;
}

namespace {

// The calls of `fr` its samples came from in unit `r` (sampled executions apart: scaled).
double sampled_calls(const RunResult& r, const FunctionRun& fr) {
  double calls = static_cast<double>(fr.calls);
  if (r.sampled_executions > 0) calls *= static_cast<double>(r.sampled_executions) / std::max(r.probed_executions, 1);
  return calls;
}

}  // namespace

WindowFacts window_facts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                         const std::string& function, double probe_cost_ns) {
  WindowFacts f;
  double compensation = 0, descendants = 0, timed_calls = 0, cpu_ns = 0, cpu_calls = 0;
  LatencyHistogram windows;
  uint64_t cpu = 0, probe = 0;
  bool sampled = true, any = false;
  for (const auto* runs : {&base_runs, &head_runs})
    for (const RunResult* r : fact_units(*runs)) {
      const FunctionRun* fr = r->find(function);
      if (r->sample_period_ns == 0) sampled = false;
      if (!fr) continue;
      any = true;
      if (fr->histogram.count() > 0 && fr->calls > 0) {
        windows.merge(fr->histogram);
        if (fr->true_time.present && fr->true_time.raw_sum_ns > fr->sum_ns)  // --true-time compensated
          compensation += static_cast<double>(fr->true_time.raw_sum_ns - fr->sum_ns);
        descendants += static_cast<double>(fr->true_time.descendants);
        timed_calls += static_cast<double>(fr->calls);
      }
      if (r->sample_period_ns && fr->calls) {
        cpu += fr->cpu_samples;
        probe += fr->probe_samples;
        cpu_ns += static_cast<double>(fr->cpu_samples) * static_cast<double>(r->sample_period_ns);
        cpu_calls += sampled_calls(*r, *fr);
      }
    }
  f.timed = timed_calls > 0;
  f.sampled = sampled && any;
  if (f.timed) {
    // The median window, raw (a compensated histogram gets its mean compensation back): the typical
    // call, which the p50 test compares; a mean would be the tail's (the shop's pricing.Apply: p50
    // ~40 us, mean ~270 us for its preempted and GC-stopped calls).
    f.window_ns = windows.quantile(0.5) + compensation / timed_calls;
    f.descendants = descendants / timed_calls;
    if (probe_cost_ns >= 0 && f.window_ns > 0) {
      f.probe_share = std::min(1.0, (f.descendants + 0.5) * probe_cost_ns / f.window_ns);
      f.probe_ns = f.probe_share * f.window_ns;
    }
  }
  if (f.sampled) {
    f.cpu_ns = cpu_calls > 0 ? cpu_ns / cpu_calls : 0;
    f.sample_probe_share = cpu + probe ? static_cast<double>(probe) / static_cast<double>(cpu + probe) : 0;
    if (f.timed && std::isfinite(f.probe_share)) {
      const double rest = f.window_ns * (1 - f.probe_share);
      // A window all probes by the estimate: no rest to compare with; what CPU it has is then code
      // (none at all: nothing says it runs on CPU).
      f.on_cpu = rest > 0 ? f.cpu_ns / rest : (f.cpu_ns > 0 ? 1.0 : 0.0);
    }
  }
  return f;
}

double reference_on_cpu(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                        double probe_cost_ns, uint64_t min_samples) {
  // The samples per function in the units read, in one pass (10,000 functions: no lookup per function).
  std::unordered_map<std::string, uint64_t> samples;
  size_t units = 0;
  for (const auto* runs : {&base_runs, &head_runs})
    for (const RunResult* r : fact_units(*runs)) {
      ++units;
      for (const auto& fr : r->functions)
        if (fr.histogram.count() > 0) samples[fr.name.str()] += fr.cpu_samples;
    }
  std::string busiest;
  uint64_t most = 0;
  for (const auto& [name, n] : samples)
    if (n > most && n >= min_samples * std::max<size_t>(units, 1)) {
      most = n;
      busiest = name;
    }
  if (busiest.empty()) return 0;
  const WindowFacts f = window_facts(base_runs, head_runs, busiest, probe_cost_ns);
  return std::isfinite(f.on_cpu) ? std::min(1.0, f.on_cpu) : 0;
}

bool waits(const WindowFacts& f, const WindowRule& rule) {
  if (!f.timed || !f.sampled || !std::isfinite(f.on_cpu)) return false;
  // On CPU for its window without probes, the probes' share given the benefit of its doubt.
  const double rest = f.window_ns - f.probe_ns;
  const double on_cpu = rest > 0 ? (f.cpu_ns + rule.probe_cost_uncertainty * f.probe_ns) / rest : f.on_cpu;
  return on_cpu < std::max(rule.min_on_cpu, rule.min_on_cpu_relative * rule.reference_on_cpu);
}

bool sampled_figure_ruled_out(const WindowFacts& f, const WindowRule& rule) {
  return f.timed && f.sampled && f.window_ns > 0 && f.cpu_ns > rule.max_cpu_over_window * f.window_ns;
}

double SampleCounts::least() const {
  if (counted[0] && counted[1]) return std::min(per_execution[0], per_execution[1]);
  return counted[0] ? per_execution[0] : per_execution[1];
}

SampleCounts sample_counts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                           const std::string& function) {
  SampleCounts c;
  const std::vector<RunResult>* sides[2] = {&base_runs, &head_runs};
  for (int side = 0; side < 2; ++side) {
    uint64_t samples = 0;
    int executions = 0;
    for (const RunResult* r : fact_units(*sides[side])) {
      if (r->sample_period_ns == 0) continue;
      const FunctionRun* fr = r->find(function);
      if (!fr || fr->calls == 0) continue;
      const bool trial = r->trial_executions > 0;
      samples += trial ? fr->trial_self_samples : fr->self_samples;
      executions += trial ? r->trial_executions : sampled_executions_of(*r);
    }
    if (executions > 0) {
      c.counted[side] = true;
      c.per_execution[side] = static_cast<double>(samples) / executions;
    }
  }
  return c;
}

double sampled_ns_per_call(const RunResult& run, const FunctionRun& f) {
  if (run.sample_period_ns == 0 || f.calls == 0 || f.self_samples == 0) return kNaN;
  double calls = static_cast<double>(f.calls);
  if (run.sampled_executions > 0)  // sampled apart from the probed executions: their calls scaled
    calls *= static_cast<double>(run.sampled_executions) / std::max(run.probed_executions, 1);
  return static_cast<double>(f.self_samples) * static_cast<double>(run.sample_period_ns) / calls;
}

double CountedUnit::value() const { return ns_per_call * std::exp(-log_offset); }

RatioInterval pooled_count_ratio(const std::vector<CountedUnit>& base, const std::vector<CountedUnit>& head,
                                 double confidence, bool paired, int* units) {
  RatioInterval r;
  r.ratio = 0;
  std::vector<double> b, h;
  uint64_t b_samples = 0, h_samples = 0;
  if (paired) {
    for (size_t i = 0, j = 0; i < base.size() && j < head.size();) {
      if (base[i].run < head[j].run) { ++i; continue; }
      if (head[j].run < base[i].run) { ++j; continue; }
      b.push_back(base[i].value());
      h.push_back(head[j].value());
      b_samples += base[i].samples;
      h_samples += head[j].samples;
      ++i;
      ++j;
    }
  } else {
    for (const auto& u : base) b.push_back(u.value()), b_samples += u.samples;
    for (const auto& u : head) h.push_back(u.value()), h_samples += u.samples;
  }
  *units = static_cast<int>(paired ? b.size() : std::min(b.size(), h.size()));
  if (*units < 2 || b_samples == 0 || h_samples == 0) return r;
  auto mean = [](const std::vector<double>& v) {
    double m = 0;
    for (double x : v) m += x / static_cast<double>(v.size());
    return m;
  };
  const double bm = mean(b), hm = mean(h);
  if (!(bm > 0) || !(hm > 0)) return r;
  // The linearized variance of log(hm / bm): per unit its share of each side's mean.
  auto var_of = [](const std::vector<double>& v, double m) {
    double s = 0;
    for (double x : v) s += (x / m - 1) * (x / m - 1);
    return s / static_cast<double>(v.size() - 1) / static_cast<double>(v.size());
  };
  // The ratio of means is biased up by the sparser side's noise: to second order E[log of a mean m
  // with relative variance v] = log m - v / 2, so log(hm / bm) reads (vb - vh) / 2 high, ~10% for a
  // base of 1 sample a unit over 5 units against a dense head. Taken out of the centre: at the
  // band's edge the test then holds its one-sided level (tests/stats/pooled_edge_sim,
  // tests/bench/results/pooled_edge_sim.txt).
  const double bias = (var_of(b, bm) - var_of(h, hm)) / 2;
  double var = 0;
  if (paired) {
    const double n = static_cast<double>(b.size());
    double s = 0;
    for (size_t k = 0; k < b.size(); ++k) s += (h[k] / hm - b[k] / bm) * (h[k] / hm - b[k] / bm);  // mean 0
    var = s / (n - 1) / n;
    r.df = n - 1;
  } else {
    const double vb = var_of(b, bm), vh = var_of(h, hm);
    var = vb + vh;
    const double den = vb * vb / static_cast<double>(b.size() - 1) + vh * vh / static_cast<double>(h.size() - 1);
    r.df = den > 0 ? var * var / den : static_cast<double>(b.size() + h.size() - 2);
  }
  // Floored at half the counts' Poisson sd: only a spread implausibly small for its counts binds it
  // (a floor of the whole sd bound about half the time: its A/As excluded 1 in 0-3.5% of cases at
  // 95% with 5 samples a unit or fewer; tests/bench/pooled_counts_sim.py).
  const double counting = 1 / static_cast<double>(b_samples) + 1 / static_cast<double>(h_samples);
  const double se = std::sqrt(std::max(var, counting / 4));
  r.base_ns = bm;
  r.head_ns = hm;
  r.log_center = std::log(hm / bm) - bias;
  r.ratio = std::exp(r.log_center);
  r.log_scale = se;
  const double t_crit = student_t_quantile(1 - (1 - confidence) / 2, r.df);
  r.ci_low = std::exp(r.log_center - t_crit * se);
  r.ci_high = std::exp(r.log_center + t_crit * se);
  return r;
}

namespace {

// Each side's units for the sampled test, with calls and sampling; a unit that counted no sample of
// the function has value 0. Units of every size are in (gate ab's first pair, which had other units,
// is a pilot and left out by the caller; a merge's shards may size their sampled executions apart:
// a smaller unit is noisier, not biased, and its value is per call).
std::vector<CountedUnit> counted_units(const std::vector<RunResult>& runs, const std::string& function, int side,
                                       const SpeedFactors& speed) {
  std::vector<CountedUnit> out;
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunResult& run = runs[r];
    if (run.sample_period_ns == 0) continue;
    const FunctionRun* fr = run.find(function);
    if (!fr || fr->calls == 0) continue;
    const double v = fr->self_samples ? sampled_ns_per_call(run, *fr) : 0.0;
    if (!std::isfinite(v)) continue;
    const double offset = speed.usable && r < speed.all[side].size() ? speed.all[side][r] : 0.0;
    double calls = static_cast<double>(fr->calls);
    if (run.sampled_executions > 0) calls *= static_cast<double>(run.sampled_executions) / std::max(run.probed_executions, 1);
    out.push_back({r, v, offset, fr->self_samples, calls});
  }
  return out;
}

// One side counted no sample in any unit, the other some: the exact conditional test of the two
// counts over the units both sides have (the pairs, when paired), their calls the exposures. The
// speed factors are not applied: a handful of samples against none carries no per-unit spread to
// normalize. Why exact: the pooled interval's log ratio has no centre at a zero count, and leaving
// the test "insufficient data" let a function that went from nothing to a lot pass (issue 54).
void fill_exact(QuantileComparison& qc, const std::vector<CountedUnit>& base, const std::vector<CountedUnit>& head,
                bool paired, double confidence) {
  ExactCounts e;
  e.used = true;
  int units = 0;
  auto add = [&](const CountedUnit& u, bool is_head) {
    (is_head ? e.head_count : e.base_count) += static_cast<double>(u.samples);
    (is_head ? e.head_exposure : e.base_exposure) += u.calls;
  };
  if (paired) {
    for (size_t i = 0, j = 0; i < base.size() && j < head.size();) {
      if (base[i].run < head[j].run) { ++i; continue; }
      if (head[j].run < base[i].run) { ++j; continue; }
      add(base[i++], false);
      add(head[j++], true);
      ++units;
    }
  } else {
    for (const auto& u : base) add(u, false);
    for (const auto& u : head) add(u, true);
    units = static_cast<int>(std::min(base.size(), head.size()));
  }
  qc.units = units;
  if (!(e.base_exposure > 0) || !(e.head_exposure > 0) || e.base_count + e.head_count <= 0) return;
  qc.exact = e;
  qc.paired = paired;
  qc.pooled = {true, static_cast<uint64_t>(e.base_count), static_cast<uint64_t>(e.head_count)};
  qc.df = 0;
  qc.noise = 0;
  double bm = 0, hm = 0;
  for (const auto& u : base) bm += u.ns_per_call / static_cast<double>(base.size());
  for (const auto& u : head) hm += u.ns_per_call / static_cast<double>(head.size());
  qc.base_ns = bm;
  qc.head_ns = hm;
  qc.ratio = e.center();
  qc.log_center = std::log(qc.ratio);
  qc.log_scale = 0;
  const double alpha = (1 - confidence) / 2;
  qc.ci_low = qc.raw_ci_low = e.bound(alpha, -1);
  qc.ci_high = qc.raw_ci_high = e.bound(alpha, +1);
  qc.p_regression = qc.p_regression_own = e.p_above(1 + qc.band.regression);
  qc.p_improvement = e.p_below(1 - qc.band.improvement);
  qc.p_unchanged = std::max(e.p_below(1 + qc.band.regression), e.p_above(1 - qc.band.improvement));
  qc.verdict = Verdict::kUnchanged;  // provisionally tested: the family decides (stats/family.hpp)
}

// Whether the sampled test pools the counts: the sparser side's self samples an execution in the
// units the facts are read in (sample_counts: the pilot's trial executions where it ran them), times
// the executions a tested unit samples, below kSparseSamplesPerUnit.
bool sparse_by_facts(const std::vector<RunResult>& all_base, const std::vector<RunResult>& all_head,
                     const std::vector<RunResult>& tested_base, const std::string& function) {
  const SampleCounts c = sample_counts(all_base, all_head, function);
  if (!c.counted[0] || !c.counted[1]) return true;
  int executions = 1;
  for (const auto& r : tested_base)
    if (!r.pilot) executions = std::max(executions, sampled_executions_of(r));
  return c.least() * executions < kSparseSamplesPerUnit;
}

}  // namespace

QuantileComparison sampled_test(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                const std::string& function, const CompareOptions& o, bool paired,
                                const SpeedFactors& speed, const std::vector<RunResult>* fact_base,
                                const std::vector<RunResult>* fact_head) {
  QuantileComparison qc;
  qc.name = kSampledTestName;
  qc.band = o.thresholds.lookup(function, kSampledTestName);
  qc.ratio = qc.ci_low = qc.ci_high = kNaN;
  qc.p_regression = qc.p_regression_adjusted = qc.p_improvement = qc.p_improvement_adjusted = kNaN;
  const std::vector<CountedUnit> units[2] = {counted_units(base_runs, function, 0, speed),
                                             counted_units(head_runs, function, 1, speed)};
  uint64_t counted[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    for (const auto& u : units[i]) counted[i] += u.samples;
    (i == 0 ? qc.base_runs_used : qc.head_runs_used) = static_cast<int>(units[i].size());
  }
  for (int i = 0; i < 2; ++i)
    if (static_cast<int>(units[i].size()) < o.min_runs || (counted[0] == 0 && counted[1] == 0)) {
      // Too few units, or no sample at all on either side: nothing to test.
      const int have = counted[i] == 0 ? 0 : static_cast<int>(units[i].size());
      qc.too_few(Why::Kind::kTooFewSampledRuns, have, o.min_runs, i == 0 ? "base" : "head");
      return qc;
    }
  if (counted[0] == 0 || counted[1] == 0) {
    qc.pooled = {true, counted[0], counted[1]};
    fill_exact(qc, units[0], units[1], paired, o.confidence);
    if (qc.units < o.min_runs || !qc.exact.used) {
      qc.exact = {};
      qc.too_few(paired ? Why::Kind::kTooFewPairs : Why::Kind::kTooFewSampledRuns, qc.units, o.min_runs);
    }
    return qc;
  }
  // Sparse or dense, decided from the counts of the units the instrument's facts are read in (the
  // pilot pair, else each side's first unit: fact_units), never from the units tested as a whole:
  // a base that counted few samples by chance both reads the ratio high and, judged by the tested
  // units, moved the trial to the other test (at the band's edge 11.7% of the trials that moved
  // were false regressions; tests/stats/pooled_edge_sim).
  if (sparse_by_facts(fact_base ? *fact_base : base_runs, fact_head ? *fact_head : head_runs, base_runs, function)) {
    qc.pooled = {true, counted[0], counted[1]};
    const RatioInterval r = pooled_count_ratio(units[0], units[1], o.confidence, paired, &qc.units);
    if (qc.units < o.min_runs) {
      qc.too_few(paired ? Why::Kind::kTooFewPairs : Why::Kind::kTooFewSampledRuns, qc.units, o.min_runs);
      return qc;
    }
    fill_interval(qc, r, paired);
    return qc;
  }
  RunSamples samples[2];
  for (int i = 0; i < 2; ++i) {
    // Half a sample added to each unit's count: the log of a Poisson count of mean m reads ~1 / (2m)
    // low (2.5% at 20), differently on sides whose counts differ; log(n + 1/2) is unbiased to that order.
    // Each unit carries its count's spread (add_count_run): a pair's variance is never below it.
    for (const auto& u : units[i])
      if (u.samples > 0)
        samples[i].add_count_run(u.ns_per_call * (1 + 0.5 / static_cast<double>(u.samples)), u.samples, u.run,
                                 u.log_offset);
    if (static_cast<int>(samples[i].runs()) < o.min_runs) {
      qc.too_few(Why::Kind::kTooFewSampledRuns, static_cast<int>(samples[i].runs()), o.min_runs, i == 0 ? "base" : "head");
      return qc;
    }
  }
  uint64_t state = o.seed ^ fnv1a64(function, fnv1a64("sampled cpu/call"));
  const RatioInterval r =
      ratio_over_runs(samples[0], samples[1], bootstrap_options(o, splitmix64(state)), paired, &qc.units);
  if (paired && qc.units < o.min_runs) {
    qc.too_few(Why::Kind::kTooFewPairs, qc.units, o.min_runs);
    return qc;
  }
  fill_interval(qc, r, paired);
  return qc;
}

}  // namespace gate::stats
