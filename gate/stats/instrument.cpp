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
#include "stats/rng.hpp"

namespace gate::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

FirstPairRatio first_pair_ratio(const InstrumentFacts& f) {
  FirstPairRatio out;
  const double b = static_cast<double>(f.side_samples[0]), h = static_cast<double>(f.side_samples[1]);
  if (b <= 0 || h <= 0 || f.side_calls[0] == 0 || f.side_calls[1] == 0) return out;
  out.ratio = (h / static_cast<double>(f.side_calls[1])) / (b / static_cast<double>(f.side_calls[0]));
  out.log_sd = std::sqrt(1 / b + 1 / h);
  return out;
}

double smaller_side_samples_per_unit(const InstrumentFacts& f, const InstrumentRule& rule) {
  const double least = std::min(f.side_samples_per_execution[0], f.side_samples_per_execution[1]);
  return rule.planned_executions > 0 ? least * rule.planned_executions : least;
}

double sds_beyond_band(const InstrumentFacts& f, const Band& band) {
  const FirstPairRatio r = first_pair_ratio(f);
  if (!(r.ratio > 0) || !(r.log_sd > 0)) return kNaN;
  const double x = std::log(r.ratio);
  const double edge = x >= 0 ? std::log1p(band.regression)
                             : (band.improvement < 1 ? std::log1p(-band.improvement) : -kInf);
  return (x >= 0 ? x - edge : edge - x) / r.log_sd;
}

double samples_per_unit(const InstrumentFacts& f, const InstrumentRule& rule) {
  return rule.planned_executions > 0 ? f.samples_per_execution * rule.planned_executions : f.samples_per_unit;
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
  return smaller_side_samples_per_unit(f, rule) >= rule.min_samples_decisive && decisive_but_for_count(f, rule, band);
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
  return static_cast<int>(std::max(1.0, std::ceil(target / f.samples_per_execution - 1e-9)));
}

double sampled_ns_per_call(const RunResult& run, const FunctionRun& f) {
  if (run.sample_period_ns == 0 || f.calls == 0 || f.self_samples == 0) return kNaN;
  double calls = static_cast<double>(f.calls);
  if (run.sampled_executions > 0)  // sampled apart from the probed executions: their calls scaled
    calls *= static_cast<double>(run.sampled_executions) / std::max(run.probed_executions, 1);
  return static_cast<double>(f.self_samples) * static_cast<double>(run.sample_period_ns) / calls;
}

QuantileComparison sampled_test(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                const std::string& function, const CompareOptions& o, bool paired,
                                const SpeedFactors& speed) {
  QuantileComparison qc;
  qc.name = kSampledTestName;
  qc.band = o.thresholds.lookup(function, kSampledTestName);
  qc.ratio = qc.ci_low = qc.ci_high = kNaN;
  qc.p_regression = qc.p_regression_adjusted = qc.p_improvement = qc.p_improvement_adjusted = kNaN;
  RunSamples samples[2];
  const std::vector<RunResult>* sides[2] = {&base_runs, &head_runs};
  for (int i = 0; i < 2; ++i) {
    // Units smaller than the side's largest are left out: gate ab grows its units after the first
    // pair (for samples, or because calls: auto removed probes and made executions shorter), and a
    // first unit of a fraction of the samples, measured with the probes still on, would carry
    // several times the later units' sampling noise into every pair's variance.
    int largest = 1;
    for (const auto& run : *sides[i]) largest = std::max(largest, sampled_executions_of(run));
    for (size_t r = 0; r < sides[i]->size(); ++r) {
      const RunResult& run = (*sides[i])[r];
      if (sampled_executions_of(run) < largest) continue;
      const FunctionRun* fr = run.find(function);
      const double v = fr ? sampled_ns_per_call(run, *fr) : kNaN;
      if (!std::isfinite(v) || v <= 0) continue;
      const double factor = speed.usable && r < speed.all[i].size() ? speed.all[i][r] : 0.0;
      samples[i].add_point_run(v, r, factor);
    }
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
