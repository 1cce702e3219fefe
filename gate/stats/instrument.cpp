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
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxSds = 40;  // sds_beyond_band's figure where the tail underflows

const RunResult* first_unit(const std::vector<RunResult>& runs) { return runs.empty() ? nullptr : &runs.front(); }

}  // namespace

std::string_view to_string(Instrument i) { return i == Instrument::kSamples ? "samples" : "probes"; }

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

InstrumentFacts instrument_facts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                 const std::string& function) {
  InstrumentFacts f;
  uint64_t cpu = 0, inclusive = 0, probe = 0, probed_ns = 0, units = 0, executions = 0, cpu_counted = 0;
  double sampled_ns = 0;
  f.sampled = true;
  const RunResult* firsts[2] = {first_unit(base_runs), first_unit(head_runs)};
  for (int side = 0; side < 2; ++side) {
    const RunResult* r = firsts[side];
    if (!r || r->sample_period_ns == 0) {
      f.sampled = false;
      continue;
    }
    const FunctionRun* fr = r->find(function);
    if (!fr) continue;
    ++units;
    // The counts: the trial's executions without probes where the unit ran one (gate ab's first
    // pair, before its sampled executions: what those will count), else the unit's own.
    const bool trial = r->trial_executions > 0;
    const int side_executions = trial ? r->trial_executions : sampled_executions_of(*r);
    const uint64_t self = trial ? fr->trial_self_samples : fr->self_samples;
    executions += static_cast<uint64_t>(side_executions);
    cpu_counted += self;
    f.side_samples[side] = self;
    f.side_executions[side] = side_executions;
    f.side_samples_per_execution[side] = static_cast<double>(self) / side_executions;
    // The calls the samples came from: the probed executions' calls scaled to the sampled ones (as
    // sampled_ns_per_call does).
    const int from = trial ? r->trial_executions : r->sampled_executions;
    f.side_calls[side] = from > 0 ? fr->calls * static_cast<uint64_t>(from) /
                                        static_cast<uint64_t>(std::max(r->probed_executions, 1))
                                  : fr->calls;
    cpu += fr->self_samples;
    probe += fr->probe_samples;
    inclusive += fr->cpu_samples;
    sampled_ns += static_cast<double>(fr->cpu_samples + fr->probe_samples) * static_cast<double>(r->sample_period_ns);
    probed_ns += fr->sum_ns;
  }
  // Whether the probes time it now: in the last units (calls: auto removes a sampled function's
  // return probes after gate ab's first pair; the first units still timed it).
  for (const auto* runs : {&base_runs, &head_runs})
    if (!runs->empty())
      if (const FunctionRun* fr = runs->back().find(function))
        f.latency_timed = f.latency_timed || fr->histogram.count() > 0;
  if (!f.sampled || units == 0) return f;
  f.probe_share = inclusive + probe ? static_cast<double>(probe) / static_cast<double>(inclusive + probe) : 0;
  f.on_cpu = probed_ns ? sampled_ns / static_cast<double>(probed_ns) : 0;
  f.samples_per_unit = static_cast<double>(cpu) / static_cast<double>(units);
  f.samples_per_execution = static_cast<double>(cpu_counted) / static_cast<double>(executions);
  return f;
}

double on_cpu_reference(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                        const InstrumentRule& rule) {
  // instrument_facts' sums per function, in one pass over each first unit (10,000 functions: no
  // lookup per function).
  struct Sums {
    double sampled_ns = 0;
    uint64_t samples = 0, probed_ns = 0;
    int units = 0;
    bool timed = false;
  };
  std::unordered_map<std::string, Sums> sums;
  for (const RunResult* r : {first_unit(base_runs), first_unit(head_runs)}) {
    if (!r || r->sample_period_ns == 0) return 0;
    for (const auto& fr : r->functions) {
      Sums& s = sums[fr.name.str()];
      s.samples += fr.cpu_samples + fr.probe_samples;
      s.sampled_ns += static_cast<double>(fr.cpu_samples + fr.probe_samples) * static_cast<double>(r->sample_period_ns);
      s.probed_ns += fr.sum_ns;
      s.timed = s.timed || fr.histogram.count() > 0;
      ++s.units;
    }
  }
  const Sums* busiest = nullptr;
  for (const auto& [name, s] : sums)
    if (s.timed && s.probed_ns && static_cast<double>(s.samples) / s.units >= rule.min_samples_per_unit &&
        (!busiest || s.samples > busiest->samples))
      busiest = &s;
  return busiest ? std::min(1.0, busiest->sampled_ns / static_cast<double>(busiest->probed_ns)) : 0;
}

double first_pair_ratio(const InstrumentFacts& f) {
  const double b = static_cast<double>(f.side_samples[0]), h = static_cast<double>(f.side_samples[1]);
  if (b <= 0 || h <= 0 || f.side_calls[0] == 0 || f.side_calls[1] == 0) return kNaN;
  return (h / static_cast<double>(f.side_calls[1])) / (b / static_cast<double>(f.side_calls[0]));
}

double least_samples_per_execution(const InstrumentFacts& f) {
  const bool both = f.side_calls[0] > 0 && f.side_calls[1] > 0;
  return both ? std::min(f.side_samples_per_execution[0], f.side_samples_per_execution[1]) : f.samples_per_execution;
}

double smaller_side_samples_per_unit(const InstrumentFacts& f, const InstrumentRule& rule) {
  double rate[2];
  for (int i = 0; i < 2; ++i)
    rate[i] = f.side_executions[i] > 0 ? (static_cast<double>(f.side_samples[i]) + 0.5) / f.side_executions[i]
                                       : f.side_samples_per_execution[i];
  const double least = std::min(rate[0], rate[1]);
  return rule.planned_executions > 0 ? least * rule.planned_executions : least;
}

double sds_beyond_band(const InstrumentFacts& f, const Band& band) {
  const double b = static_cast<double>(f.side_samples[0]), h = static_cast<double>(f.side_samples[1]);
  const double cb = static_cast<double>(f.side_calls[0]), ch = static_cast<double>(f.side_calls[1]);
  if (b + h <= 0 || cb <= 0 || ch <= 0) return kNaN;
  const double n = b + h;
  // Given n samples on both sides, the head's count is binomial with the head's share of the rate
  // at the band's edge: its tail beyond the observed count is the test's p, said as a normal z.
  const bool up = h / ch >= b / cb;
  const double edge = up ? 1 + band.regression : 1 - band.improvement;
  if (!(edge > 0)) return -kInf;  // no improvement band: nothing lies beyond it
  const double p0 = edge * ch / (cb + edge * ch);
  // P(X >= h) = I_p0(h, n - h + 1); P(X <= h) = I_(1-p0)(n - h, h + 1).
  const double p = up ? (h > 0 ? incomplete_beta(p0, h, n - h + 1) : 1.0)
                      : (h < n ? incomplete_beta(1 - p0, n - h, h + 1) : 1.0);
  if (!(p > 0)) return kMaxSds;
  return std::min(kMaxSds, -normal_quantile(p));
}

double samples_per_unit(const InstrumentFacts& f, const InstrumentRule& rule) {
  if (rule.planned_executions > 0) return least_samples_per_execution(f) * rule.planned_executions;
  const double pooled = f.samples_per_execution;
  // The first units' own, scaled to the sparser side's share of the pooled count.
  return pooled > 0 ? f.samples_per_unit * least_samples_per_execution(f) / pooled : f.samples_per_unit;
}

namespace {

bool probes_dominate(const InstrumentFacts& f, const InstrumentRule& rule) { return f.probe_share > rule.max_probe_share; }

// auto's rule without the count of samples: the probes dominate a function that runs on CPU.
bool samples_but_for_count(const InstrumentFacts& f, const InstrumentRule& rule) {
  if (f.on_cpu < rule.min_on_cpu || f.on_cpu < rule.min_on_cpu_relative * rule.on_cpu_reference) return false;
  return probes_dominate(f, rule);
}

// decisive_first_pair but for the count.
bool decisive_but_for_count(const InstrumentFacts& f, const InstrumentRule& rule, const Band& band) {
  return probes_dominate(f, rule) && sds_beyond_band(f, band) > rule.decisive_sds;  // NaN: false
}

}  // namespace

bool decisive_first_pair(const InstrumentFacts& f, const InstrumentRule& rule, const Band& band) {
  return smaller_side_samples_per_unit(f, rule) * std::max(rule.decisive_pairs, 1) >= rule.min_samples_decisive &&
         decisive_but_for_count(f, rule, band);
}

Instrument choose_instrument(MeasureSetting setting, const InstrumentFacts& f, const InstrumentRule& rule,
                             const Band* band) {
  if (setting == MeasureSetting::kProbes) return Instrument::kProbes;
  if (setting == MeasureSetting::kSamples) return Instrument::kSamples;
  if (!f.sampled) return Instrument::kProbes;
  if (!f.latency_timed) return Instrument::kSamples;  // calls: entry: the probes time nothing
  if (band && decisive_first_pair(f, rule, *band)) return Instrument::kSamples;
  if (samples_per_unit(f, rule) < rule.min_samples_per_unit) return Instrument::kProbes;
  return samples_but_for_count(f, rule) ? Instrument::kSamples : Instrument::kProbes;
}

int executions_for_samples(const InstrumentFacts& f, const InstrumentRule& rule, const Band* band) {
  if (!f.sampled || !f.latency_timed || !(f.samples_per_execution > 0)) return 0;
  if (!samples_but_for_count(f, rule) && !(band && decisive_but_for_count(f, rule, *band))) return 0;
  const double target = std::max(rule.target_samples_per_unit, rule.min_samples_per_unit);
  // For the sparser side (a side that counted none: as if it counted one, the cap decides).
  const double per_execution = std::max(least_samples_per_execution(f), 1.0 / 64);
  return static_cast<int>(std::max(1.0, std::ceil(target / per_execution - 1e-9)));
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
  r.ratio = hm / bm;
  r.log_center = std::log(r.ratio);
  r.log_scale = se;
  const double t_crit = student_t_quantile(1 - (1 - confidence) / 2, r.df);
  r.ci_low = std::exp(r.log_center - t_crit * se);
  r.ci_high = std::exp(r.log_center + t_crit * se);
  return r;
}

namespace {

// Each side's units for the sampled test: those as large as the side's largest (gate ab grows its
// units after the first pair, for samples, or because calls: auto removed probes and made
// executions shorter; a first unit of a fraction of the samples, measured with the probes still
// on, would carry several times the later units' sampling noise into every pair's variance), with
// calls and sampling; a unit that counted no sample of the function has value 0.
std::vector<CountedUnit> counted_units(const std::vector<RunResult>& runs, const std::string& function, int side,
                                       const SpeedFactors& speed) {
  std::vector<CountedUnit> out;
  int largest = 1;
  for (const auto& run : runs) largest = std::max(largest, sampled_executions_of(run));
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunResult& run = runs[r];
    if (sampled_executions_of(run) < largest || run.sample_period_ns == 0) continue;
    const FunctionRun* fr = run.find(function);
    if (!fr || fr->calls == 0) continue;
    const double v = fr->self_samples ? sampled_ns_per_call(run, *fr) : 0.0;
    if (!std::isfinite(v)) continue;
    const double offset = speed.usable && r < speed.all[side].size() ? speed.all[side][r] : 0.0;
    out.push_back({r, v, offset, fr->self_samples});
  }
  return out;
}

// Whether the units' counts are sparse (kSparseSamplesPerUnit): a unit that counted none, or a
// side whose mean is below it.
bool sparse(const std::vector<CountedUnit>& units) {
  if (units.empty()) return false;
  uint64_t total = 0;
  for (const auto& u : units) {
    if (u.samples == 0) return true;
    total += u.samples;
  }
  return static_cast<double>(total) / static_cast<double>(units.size()) < kSparseSamplesPerUnit;
}

}  // namespace

QuantileComparison sampled_test(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                const std::string& function, const CompareOptions& o, bool paired,
                                const SpeedFactors& speed) {
  QuantileComparison qc;
  qc.name = kSampledTestName;
  qc.band = o.thresholds.lookup(function, kSampledTestName);
  qc.ratio = qc.ci_low = qc.ci_high = kNaN;
  qc.p_regression = qc.p_regression_adjusted = qc.p_improvement = qc.p_improvement_adjusted = kNaN;
  const std::vector<CountedUnit> units[2] = {counted_units(base_runs, function, 0, speed),
                                             counted_units(head_runs, function, 1, speed)};
  if (sparse(units[0]) || sparse(units[1])) {
    uint64_t counted[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      for (const auto& u : units[i]) counted[i] += u.samples;
      (i == 0 ? qc.base_runs_used : qc.head_runs_used) = static_cast<int>(units[i].size());
    }
    qc.pooled = {true, counted[0], counted[1]};
    for (int i = 0; i < 2; ++i)
      if (static_cast<int>(units[i].size()) < o.min_runs || counted[i] == 0) {
        // No sample at all on a side: no ratio to test; its units count as none with samples.
        const int have = counted[i] == 0 ? 0 : static_cast<int>(units[i].size());
        qc.too_few(Why::Kind::kTooFewSampledRuns, have, o.min_runs, i == 0 ? "base" : "head");
        return qc;
      }
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
    for (const auto& u : units[i])
      if (u.ns_per_call > 0) samples[i].add_point_run(u.ns_per_call, u.run, u.log_offset);
    (i == 0 ? qc.base_runs_used : qc.head_runs_used) = static_cast<int>(samples[i].runs());
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
