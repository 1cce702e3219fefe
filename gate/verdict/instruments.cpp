// judge_instruments: per function the instrument, then the sampled test in place of the latency tests.
#include "verdict/instruments.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "stats/benchmarks.hpp"
#include "stats/instrument.hpp"
#include "verdict/benchmarks.hpp"

namespace gate::verdict {
namespace {

double median_cpu_ns(const std::vector<RunResult>& runs, const std::string& function) {
  std::vector<double> v;
  for (const auto& r : runs)
    if (const FunctionRun* f = r.find(function)) {
      const double x = stats::sampled_ns_per_call(r, *f);
      if (std::isfinite(x)) v.push_back(x);
    }
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// measure: auto's rule for these units: the config's probe share, the busiest function's on-CPU share.
stats::InstrumentRule auto_rule(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                const stats::CompareOptions& o) {
  stats::InstrumentRule rule;
  rule.max_probe_share = o.auto_max_probe_share;
  rule.on_cpu_reference = stats::on_cpu_reference(base_runs, head_runs, rule);
  return rule;
}

}  // namespace

void judge_instruments(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                       const std::vector<RunResult>& head_runs, const stats::CompareOptions& o) {
  const stats::InstrumentRule rule = auto_rule(base_runs, head_runs, o);
  bool replaced = false;
  std::optional<stats::SpeedFactors> speed;
  for (auto& f : c.functions) {
    const auto it = o.measure.find(f.name);
    const auto setting = static_cast<stats::MeasureSetting>(it != o.measure.end() ? it->second : o.measure_default);
    const stats::InstrumentFacts facts = stats::instrument_facts(base_runs, head_runs, f.name);
    if (facts.sampled) {
      f.probe_share = facts.probe_share;
      f.base_cpu_ns = median_cpu_ns(base_runs, f.name);
      f.head_cpu_ns = median_cpu_ns(head_runs, f.name);
    }
    if (stats::choose_instrument(setting, facts, rule) != stats::Instrument::kSamples) continue;
    if (!speed) speed = stats::speed_factors(base_runs, head_runs, o);
    f.instrument = static_cast<uint8_t>(stats::Instrument::kSamples);
    f.quantiles = {stats::sampled_test(base_runs, head_runs, f.name, o, c.paired, *speed)};
    replaced = true;
  }
  if (replaced) redecide(c, o);
}

std::vector<std::string> entry_counted_after_first_pair(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                                        const std::vector<RunResult>& head_runs,
                                                        const stats::CompareOptions& o) {
  std::vector<std::string> out;
  if (base_runs.empty() || head_runs.empty()) return out;
  const stats::InstrumentRule rule = auto_rule(base_runs, head_runs, o);
  for (const auto& f : head_runs.front().functions) {
    const std::string name = f.name;
    if (cfg.calls_of(name) != "auto") continue;
    const auto it = o.measure.find(name);
    const auto setting = static_cast<stats::MeasureSetting>(it != o.measure.end() ? it->second : o.measure_default);
    const auto facts = stats::instrument_facts(base_runs, head_runs, name);
    if (facts.latency_timed && stats::choose_instrument(setting, facts, rule) == stats::Instrument::kSamples)
      out.push_back(name);
  }
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
    after_first_();
    --rounds;
  }
  return rounds == 0 ? !failed() : inner_.add_rounds(rounds);
}

}  // namespace gate::verdict
