// judge_instruments: per function the instrument, then the sampled test in place of the latency tests.
#include "verdict/instruments.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/format.hpp"
#include "runner/units.hpp"
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
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// measure: auto's rule for these units: the config's probe share, the busiest function's on-CPU share.
// planned_executions < 0: the largest unit of the runs (the units gate ab grew to, or 1).
stats::InstrumentRule auto_rule(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                const stats::CompareOptions& o, int planned_executions = -1) {
  stats::InstrumentRule rule;
  rule.max_probe_share = o.auto_max_probe_share;
  rule.on_cpu_reference = stats::on_cpu_reference(base_runs, head_runs, rule);
  rule.decisive_pairs = o.min_runs;
  if (planned_executions < 0) {
    planned_executions = 0;
    for (const auto* runs : {&base_runs, &head_runs})
      for (const auto& r : *runs) planned_executions = std::max(planned_executions, stats::sampled_executions_of(r));
  }
  rule.planned_executions = planned_executions;
  return rule;
}

stats::MeasureSetting setting_of(const stats::CompareOptions& o, const std::string& name) {
  const auto it = o.measure.find(name);
  return static_cast<stats::MeasureSetting>(it != o.measure.end() ? it->second : o.measure_default);
}

// The band the sampled test of `name` will have (stats::sampled_test), for auto's decisive case.
stats::Band sampled_band(const stats::CompareOptions& o, const std::string& name) {
  return o.thresholds.lookup(name, stats::kSampledTestName);
}

}  // namespace

void judge_instruments(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                       const std::vector<RunResult>& head_runs, const stats::CompareOptions& o,
                       const std::vector<RunResult>* test_base, const std::vector<RunResult>* test_head) {
  const std::vector<RunResult>& tb = test_base ? *test_base : base_runs;
  const std::vector<RunResult>& th = test_head ? *test_head : head_runs;
  const stats::InstrumentRule rule = auto_rule(base_runs, head_runs, o);
  // auto's decisive case reads the first pair: only where that pair is in no test (a pilot).
  const bool first_pair_left_out = !base_runs.empty() && base_runs.front().pilot && !head_runs.empty() &&
                                   head_runs.front().pilot;
  bool replaced = false;
  std::optional<stats::SpeedFactors> speed;
  for (auto& f : c.functions) {
    const auto setting = setting_of(o, f.name);
    const stats::InstrumentFacts facts = stats::instrument_facts(base_runs, head_runs, f.name);
    if (facts.sampled) {
      f.probe_share = facts.probe_share;
      f.base_cpu_ns = median_cpu_ns(tb, f.name);
      f.head_cpu_ns = median_cpu_ns(th, f.name);
    }
    const stats::Band band = sampled_band(o, f.name);
    if (stats::choose_instrument(setting, facts, rule, first_pair_left_out ? &band : nullptr) !=
        stats::Instrument::kSamples)
      continue;
    if (!speed) speed = stats::speed_factors(tb, th, o);
    f.instrument = static_cast<uint8_t>(stats::Instrument::kSamples);
    f.quantiles = {stats::sampled_test(tb, th, f.name, o, c.paired, *speed)};
    replaced = true;
  }
  if (replaced) redecide(c, o);
}

std::vector<std::string> entry_counted_after_first_pair(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                                        const std::vector<RunResult>& head_runs,
                                                        const stats::CompareOptions& o, int planned_executions) {
  std::vector<std::string> out;
  if (base_runs.empty() || head_runs.empty()) return out;
  const stats::InstrumentRule rule = auto_rule(base_runs, head_runs, o, planned_executions);
  for (const auto& f : head_runs.front().functions) {
    const std::string name = f.name;
    if (cfg.calls_of(name) != "auto") continue;
    const auto setting = setting_of(o, name);
    const auto facts = stats::instrument_facts(base_runs, head_runs, name);
    const stats::Band band = sampled_band(o, name);
    if (facts.latency_timed && stats::choose_instrument(setting, facts, rule, &band) == stats::Instrument::kSamples)
      out.push_back(name);
  }
  return out;
}

SampleSizing sample_sized_executions(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                     const std::vector<RunResult>& head_runs, const stats::CompareOptions& o,
                                     double max_unit_seconds, bool apart, double bare_execution_s) {
  SampleSizing out;
  out.apart = apart;
  if (cfg.service || base_runs.empty() || head_runs.empty()) return out;
  const RunResult& b = base_runs.front();
  const RunResult& h = head_runs.front();
  const int first = std::max({b.executions, h.executions, 1});
  // One probed execution's seconds, the longer side's: the cap holds for both.
  const double execution_s = std::max(b.duration_s / std::max(b.probed_executions, 1),
                                      h.duration_s / std::max(h.probed_executions, 1));
  // Apart: bare executions (the first pair's trial timed one) within max_unit_seconds; else the
  // probed units grow, within max_unit_seconds.
  const int cap =
      apart ? (bare_execution_s > 0
                   ? std::min(runner::kMaxExecutionsPerUnit,
                              static_cast<int>(std::floor(max_unit_seconds / bare_execution_s)))
                   : 0)
            : std::min(runner::kMaxExecutionsPerUnit,
                       execution_s > 0 ? static_cast<int>(std::floor(max_unit_seconds / execution_s)) : first);
  out.cap = cap;
  const stats::InstrumentRule rule = auto_rule(base_runs, head_runs, o, 0);
  int want = 0;
  for (const auto& f : head_runs.front().functions) {
    const std::string name = f.name;
    if (setting_of(o, name) != stats::MeasureSetting::kAuto) continue;
    const auto facts = stats::instrument_facts(base_runs, head_runs, name);
    // Only apart may the first pair's reading choose (stats::decisive_first_pair): the first pair
    // is then a pilot, in no test.
    const stats::Band band = sampled_band(o, name);
    const int k = stats::executions_for_samples(facts, rule, apart ? &band : nullptr);
    if (k == 0 || (!apart && k <= first)) continue;  // enough already, or not a candidate
    stats::InstrumentRule at_cap = rule;
    at_cap.planned_executions = cap;
    const bool decisive = apart && cap >= 1 && stats::decisive_first_pair(facts, at_cap, band);
    // Chosen without the first pair's reading: a candidate by the ordinary rule, enough samples.
    const bool ordinary = stats::executions_for_samples(facts, rule) > 0 &&
                          stats::least_samples_per_execution(facts) * cap >= rule.min_samples_per_unit;
    if (!ordinary) {
      if (!decisive) {
        out.too_sparse.push_back({name, facts.samples_per_execution, facts.side_samples_per_execution[0],
                                  facts.side_samples_per_execution[1]});
        continue;
      }
      out.decisive.push_back({name, stats::first_pair_ratio(facts), stats::sds_beyond_band(facts, band),
                              stats::smaller_side_samples_per_unit(facts, at_cap)});
    }
    want = std::max(want, std::min(k, cap));
    out.functions.emplace_back(name, facts.samples_per_execution);
  }
  if (want > (apart ? 0 : first)) out.executions = want;
  return out;
}

std::string describe_sizing(const SampleSizing& s) {
  const stats::InstrumentRule rule;
  std::string out = (s.apart ? "from the second pair on, " + std::to_string(s.executions) +
                                   " executions a unit without probes, whose CPU samples measure the sampled functions"
                             : "units of " + std::to_string(s.executions) + " executions from the second pair on") +
                    ", so that the sampled instrument counts ~" + fmt("%.0f", rule.target_samples_per_unit) +
                    " samples a unit:";
  for (size_t i = 0; i < s.functions.size(); ++i)
    out += (i ? ", " : " ") + s.functions[i].first + " " + fmt("%.1f", s.functions[i].second) +
           " samples an execution";
  for (const auto& d : s.decisive)
    out += "; " + d.function + " by samples because its first pair's samples read " +
           (d.ratio > 0 ? fmt("%.2f", d.ratio) + "x" : std::string("none on one side")) +
           ", beyond the band by " + fmt("%.1f", d.sds) + " sd of their count (~" + fmt("%.0f", d.smaller_side_samples) +
           " samples a unit on its sparser side, pooled over the pairs)";
  return out;
}

std::string describe_too_sparse(const SampleSizing& s, const SampleSizing::TooSparse& t) {
  const stats::InstrumentRule rule;
  return t.function + " stays on probes: " + fmt("%.1f", t.per_execution) + " samples an execution (base " +
         fmt("%.1f", t.base) + ", head " + fmt("%.1f", t.head) + "), " +
         fmt("%.0f", rule.min_samples_per_unit) + " a unit would take more than " + std::to_string(s.cap) +
         " executions a unit" +
         (s.apart ? " (" + fmt("%g", kMaxSampledApartSeconds) + " s of executions without probes)"
                  : " (" + fmt("%g", kMaxSampledUnitSeconds) + " s of probed executions)");
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
