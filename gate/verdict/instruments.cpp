// judge_instruments: per function the instrument, then the sampled test in place of the latency tests.
#include "verdict/instruments.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/format.hpp"
#include "common/numbers.hpp"
#include "runner/unit_size.hpp"
#include "stats/benchmark_tests.hpp"
#include "stats/instrument.hpp"
#include "verdict/benchmark_family.hpp"

namespace gate::verdict {
namespace {

double median_cpu_ns(const std::vector<RunResult>& runs, const std::string& function) {
  std::vector<double> v;
  for (const auto& r : runs)
    if (const FunctionRun* f = r.find(function)) {
      const double x = stats::sampled_ns_per_call(r, *f);
      if (std::isfinite(x)) v.push_back(x);
    }
  return v.empty() ? 0 : median(v);  // 0: no sample, the caller's "not measured"
}

stats::MeasureSetting setting_of(const stats::CompareOptions& o, const std::string& name) {
  const auto it = o.measure.find(name);
  return static_cast<stats::MeasureSetting>(it != o.measure.end() ? it->second : o.measure_default);
}

// The window rule for these runs: the busiest declared function's on-CPU share as the reference.
stats::WindowRule window_rule(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                              double cost) {
  stats::WindowRule rule;
  rule.reference_on_cpu = stats::reference_on_cpu(base_runs, head_runs, cost);
  return rule;
}

// Whether samples can speak for the function: sampled, timed, not waiting, a figure its windows allow.
bool samples_speak(const stats::WindowFacts& f, const stats::WindowRule& rule) {
  return f.sampled && !stats::waits(f, rule) && !stats::sampled_figure_ruled_out(f, rule);
}

bool any_samples(const std::vector<RunResult>& runs, const std::string& name) {
  return std::any_of(runs.begin(), runs.end(), [&](const RunResult& r) {
    const FunctionRun* fr = r.find(name);
    return fr && fr->cpu_samples + fr->probe_samples > 0;
  });
}

bool bucketed(const runner::Config& cfg, const std::string& name) {
  return std::any_of(cfg.functions.begin(), cfg.functions.end(),
                     [&](const runner::FunctionSpec& s) { return s.bucket_by && s.pattern == name; });
}

}  // namespace

void judge_instruments(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                       const std::vector<RunResult>& head_runs, const stats::CompareOptions& o, double probe_cost_ns,
                       const std::vector<RunResult>* test_base, const std::vector<RunResult>* test_head) {
  const std::vector<RunResult>& tb = test_base ? *test_base : base_runs;
  const std::vector<RunResult>& th = test_head ? *test_head : head_runs;
  const double cost = probe_cost_ns > 0 ? probe_cost_ns : kNaN;
  c.probe_cost_ns = cost;
  const stats::WindowRule rule = window_rule(base_runs, head_runs, cost);
  bool changed = false;
  std::optional<stats::SpeedFactors> speed;
  for (auto& f : c.functions) {
    const auto setting = setting_of(o, f.name);
    const stats::WindowFacts facts = stats::window_facts(base_runs, head_runs, f.name, cost);
    f.window_probe_share = facts.probe_share;
    f.on_cpu = facts.on_cpu;
    f.waits = stats::waits(facts, rule);
    if (facts.sampled) {
      f.probe_share = facts.sample_probe_share;
      f.base_cpu_ns = median_cpu_ns(tb, f.name);
      f.head_cpu_ns = median_cpu_ns(th, f.name);
    }
    // The code's share of its window by samples: for a function on CPU (not waiting, its figure
    // not ruled out), its CPU a call over its median window (QuantileComparison::window_code_share).
    double code_share = kNaN;
    if (facts.sampled && facts.timed && facts.window_ns > 0 && facts.cpu_ns > 0 && !f.waits &&
        !stats::sampled_figure_ruled_out(facts, rule))
      code_share = facts.cpu_ns / facts.window_ns;
    f.window_code_share = code_share;
    if (setting != stats::MeasureSetting::kSamples && std::isfinite(facts.probe_share))
      for (auto& q : f.quantiles) {
        q.window_probe_share = facts.probe_share;
        q.window_code_share = code_share;
        changed = true;
      }
    if (setting == stats::MeasureSetting::kProbes || !facts.sampled) continue;
    // No sample of it on either side (a bucket of latency by argument is a series of probes, never a
    // frame of a stack): nothing for samples to say.
    if (setting == stats::MeasureSetting::kAuto && !any_samples(tb, f.name) && !any_samples(th, f.name)) continue;
    if (!speed) speed = stats::speed_factors(tb, th, o);
    stats::QuantileComparison cpu = stats::sampled_test(tb, th, f.name, o, c.paired, *speed, &base_runs, &head_runs);
    changed = true;
    if (setting == stats::MeasureSetting::kSamples) {
      f.instrument = static_cast<uint8_t>(stats::Instrument::kSamples);
      f.quantiles = {std::move(cpu)};
      continue;
    }
    if (stats::sampled_figure_ruled_out(facts, rule)) {
      // Shown, never tested: its samples are not the function's (stats::sampled_figure_ruled_out).
      cpu.verdict = stats::Verdict::kInsufficientData;
      cpu.why = {};
      cpu.why.kind = stats::Why::Kind::kSampledFigureRuledOut;
      cpu.why.on_cpu = facts.window_ns > 0 ? facts.cpu_ns / facts.window_ns : 0;
      cpu.more_runs_would_help = false;
    }
    cpu.speaks = samples_speak(facts, rule);
    // Its latency timed nothing in the tested units (calls: auto took its return probes off after
    // the pilot): the samples alone judge it.
    const bool latency = std::any_of(f.quantiles.begin(), f.quantiles.end(), [](const auto& q) { return q.tested(); }) ||
                         !std::any_of(tb.begin(), tb.end(), [&](const RunResult& r) {
                           const FunctionRun* fr = r.find(f.name);
                           return fr && fr->calls > 0 && fr->histogram.count() == 0;
                         });
    f.instrument = static_cast<uint8_t>(latency ? stats::Instrument::kBoth : stats::Instrument::kSamples);
    if (!latency) {
      cpu.speaks = cpu.why.kind != stats::Why::Kind::kSampledFigureRuledOut;
      f.quantiles.clear();
    }
    f.quantiles.push_back(std::move(cpu));
  }
  if (changed) redecide(c, o);
}

std::vector<std::string> entry_counted_after_first_pair(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                                        const std::vector<RunResult>& head_runs,
                                                        const stats::CompareOptions& o, double probe_cost_ns) {
  std::vector<std::string> out;
  if (base_runs.empty() || head_runs.empty()) return out;
  const double cost = probe_cost_ns > 0 ? probe_cost_ns : kNaN;
  const stats::WindowRule rule = window_rule(base_runs, head_runs, cost);
  for (const auto& f : head_runs.front().functions) {
    const std::string name = f.name;
    if (cfg.calls_of(name) != "auto" || bucketed(cfg, name)) continue;
    const auto setting = setting_of(o, name);
    if (setting == stats::MeasureSetting::kProbes) continue;
    // measure: auto keeps every probe (issue 54): its latency tests stay beside its samples, and the
    // instrument is the same whatever the pilot's figures read (a share near any limit would
    // otherwise take the probes off in one try and not the next).
    if (setting != stats::MeasureSetting::kSamples) continue;
    const auto facts = stats::window_facts(base_runs, head_runs, name, cost);
    if (facts.timed && !stats::sampled_figure_ruled_out(facts, rule)) out.push_back(name);
  }
  return out;
}

SampleSizing sample_sized_executions(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                     const std::vector<RunResult>& head_runs, const stats::CompareOptions& o,
                                     double probe_cost_ns, double max_unit_seconds, bool apart,
                                     double bare_execution_s) {
  SampleSizing out;
  out.apart = apart;
  if (cfg.service || base_runs.empty() || head_runs.empty()) return out;
  const RunResult& b = base_runs.front();
  const RunResult& h = head_runs.front();
  const int first = std::max({b.executions, h.executions, 1});
  // One probed execution's seconds, the longer side's: the cap holds for both.
  const double execution_s = std::max(b.duration_s / std::max(b.probed_executions, 1),
                                      h.duration_s / std::max(h.probed_executions, 1));
  const int cap =
      apart ? (bare_execution_s > 0
                   ? std::min(runner::kMaxExecutionsPerUnit,
                              static_cast<int>(std::floor(max_unit_seconds / bare_execution_s)))
                   : 0)
            : std::min(runner::kMaxExecutionsPerUnit,
                       execution_s > 0 ? static_cast<int>(std::floor(max_unit_seconds / execution_s)) : first);
  out.cap = cap;
  if (cap < 1) return out;
  const double cost = probe_cost_ns > 0 ? probe_cost_ns : kNaN;
  const stats::WindowRule rule = window_rule(base_runs, head_runs, cost);
  int want = 0;
  for (const auto& f : head_runs.front().functions) {
    const std::string name = f.name;
    const auto setting = setting_of(o, name);
    if (setting == stats::MeasureSetting::kProbes) continue;
    const auto facts = stats::window_facts(base_runs, head_runs, name, cost);
    if (!samples_speak(facts, rule)) continue;
    if (setting == stats::MeasureSetting::kAuto &&
        !(facts.timed && std::isfinite(facts.probe_share) && facts.probe_share >= rule.sampled_share))
      continue;
    const stats::SampleCounts counts = stats::sample_counts(base_runs, head_runs, name);
    if (!(counts.per_execution[0] + counts.per_execution[1] > 0)) continue;  // nothing to size from
    // A side that counted none: as if it counted one in 64 executions (the cap decides).
    const double per_execution = std::max(counts.least(), 1.0 / 64);
    const int k = static_cast<int>(std::max(1.0, std::ceil(kTargetSamplesPerUnit / per_execution - 1e-9)));
    if (!apart && k <= first) continue;  // enough already
    want = std::max(want, std::min(k, cap));
    out.functions.emplace_back(name, per_execution);
    if (per_execution * cap < kMinSamplesPerUnit) out.sparse.emplace_back(name, per_execution * cap);
  }
  if (want > (apart ? 0 : first)) out.executions = want;
  return out;
}

std::map<std::string, uint64_t> fixed_calls_after_first_pair(const runner::Config& cfg,
                                                             const std::vector<std::string>& names,
                                                             const std::vector<RunResult>& base_runs,
                                                             const std::vector<RunResult>& head_runs) {
  std::map<std::string, uint64_t> out;
  if (cfg.service || base_runs.empty() || head_runs.empty()) return out;
  const RunResult& b = base_runs.front();
  const RunResult& h = head_runs.front();
  if (b.executions < 1 || h.executions < 1) return out;
  for (const auto& name : names) {
    const FunctionRun* fb = b.find(name);
    const FunctionRun* fh = h.find(name);
    if (!fb || !fh || fb->calls == 0 || fb->unmatched_entries || fh->unmatched_entries) continue;
    const auto eb = static_cast<uint64_t>(b.executions), eh = static_cast<uint64_t>(h.executions);
    if (fb->calls % eb || fh->calls % eh || fb->calls / eb != fh->calls / eh) continue;
    out[name] = fb->calls / eb;
  }
  return out;
}

bool AfterFirstRound::add_rounds(int rounds) {
  if (!done_ && rounds > 0 && inner_.rounds_done() == 0) {
    if (!inner_.add_rounds(1)) return false;
    done_ = true;
    pilot_ = after_first_();
    if (!pilot_) --rounds;
  }
  return rounds == 0 ? !failed() : inner_.add_rounds(rounds);
}

}  // namespace gate::verdict
