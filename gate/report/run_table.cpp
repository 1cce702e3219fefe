// gate run's table: per function, calls per run and quantiles of all runs pooled, clamped to the
// exact extremes the probe saw; the entry placement; unmatched and dropped counts when there are any.
#include "report/run_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "common/format.hpp"
#include "report/benchmark_section.hpp"
#include "stats/instrument.hpp"
#include "report/text_report.hpp"

namespace gate::report {

namespace {

// The sampled instrument's figures of one function over the runs (issue 39): its CPU time per call
// without gate's probes, and the probes' share of the samples whose stack holds it.
struct Sampled {
  uint64_t cpu = 0, self = 0, probe = 0, calls = 0;
  double self_ns = 0;  // sum over sampled runs of self samples x period
};

Sampled sampled_of(const ResultFile& r, const std::string& name) {
  Sampled out;
  for (const auto& run : r.runs) {
    if (run.sample_period_ns == 0) continue;
    const auto* fr = run.find(name);
    if (!fr) continue;
    out.cpu += fr->cpu_samples;
    out.self += fr->self_samples;
    out.probe += fr->probe_samples;
    out.calls += fr->calls;
    out.self_ns += static_cast<double>(fr->self_samples) * static_cast<double>(run.sample_period_ns);
  }
  return out;
}

bool any_sampled(const ResultFile& r) {
  return std::any_of(r.runs.begin(), r.runs.end(), [](const RunResult& run) { return run.sample_period_ns > 0; });
}

std::string sampled_columns(const Sampled& x, const stats::WindowFacts& w, const std::string& instrument) {
  const std::string cpu = x.calls && x.self ? format_duration(x.self_ns / static_cast<double>(x.calls)) : "-";
  char share[16] = "-";
  if (std::isfinite(w.probe_share)) snprintf(share, sizeof share, "%.0f%%", 100.0 * w.probe_share);
  return "  " + pad_left(cpu, 8) + "  " + pad_left(share, 6) + "  " + pad_right(instrument, 7);
}

// What the verdict would judge it by (verdict::judge_instruments): its probes, its samples, or both;
// "both, waits" when samples cannot speak for it (stats::waits).
std::string instrument_of(const std::map<std::string, std::string>& measure, const std::string& name,
                          const stats::WindowFacts& w, const stats::WindowRule& rule, const Sampled& x) {
  const auto it = measure.find(name);
  const std::string setting = it == measure.end() ? "auto" : it->second;
  if (setting == "probes" || !w.sampled || (setting == "auto" && x.cpu + x.probe == 0)) return "probes";
  if (setting == "samples" || !w.timed) return "samples";
  if (stats::sampled_figure_ruled_out(w, rule)) return "probes*";
  return stats::waits(w, rule) ? "both, waits" : "both";
}

}  // namespace

std::string render_run_table(const ResultFile& r, const std::map<std::string, std::string>& measure) {
  std::string s;
  size_t w = 8;
  for (const auto& f : r.functions) w = std::max(w, f.name.size());
  const bool sampled = any_sampled(r);
  // The window figures from the probe cost measured when the run started (stats::probe_cost_per_call).
  const std::vector<RunResult> none;
  const double cost = stats::probe_cost_per_call(r, ResultFile{});
  stats::WindowRule rule;
  if (sampled) rule.reference_on_cpu = stats::reference_on_cpu(r.runs, none, cost);
  s += pad_right("function", w) + "  " + pad_left("calls/run", 10) + "  " + pad_left("p50", 8) + "  " +
       pad_left("p90", 8) + "  " + pad_left("p99", 8) + "  " + pad_left("max", 8) +
       (sampled ? "  " + pad_left("cpu/call", 8) + "  " + pad_left("probes", 6) + "  " + pad_right("by", 7) : "") +
       "  entry probe\n";
  auto window_of = [&](const std::string& name) { return stats::window_facts(r.runs, none, name, cost); };
  for (const auto& f : r.functions) {
    if (!f.measurable) {
      s += pad_right(f.name, w) + "  not measurable: " + f.not_measurable_reason + "\n";
      continue;
    }
    LatencyHistogram all;
    uint64_t calls = 0, max_ns = 0, min_ns = UINT64_MAX, unmatched = 0, dropped = 0;
    for (const auto& run : r.runs) {
      const auto* fr = run.find(f.name);
      if (!fr) continue;
      all.merge(fr->histogram);
      calls += fr->calls;
      max_ns = std::max(max_ns, fr->max_ns);
      if (fr->calls) min_ns = std::min(min_ns, fr->min_ns);
      unmatched += fr->unmatched_entries + fr->unmatched_returns;
      dropped += fr->dropped;
    }
    // Quantiles of the pooled runs, clamped to the exact extremes the probe saw.
    auto q = [&](double p) {
      return calls ? std::clamp(all.quantile(p), double(min_ns), double(max_ns)) : all.quantile(p);
    };
    const double per_run = r.runs.empty() ? 0 : static_cast<double>(calls) / r.runs.size();
    char c[32];
    snprintf(c, sizeof c, "%.0f", per_run);
    // calls: entry counts calls without timing them: no latency to show.
    const bool timed = all.count() > 0;
    auto lat = [&](double p) { return timed ? format_duration(q(p)) : std::string("-"); };
    s += pad_right(f.name, w) + "  " + pad_left(c, 10) + "  " + pad_left(lat(0.5), 8) + "  " + pad_left(lat(0.9), 8) +
         "  " + pad_left(lat(0.99), 8) + "  " +
         pad_left(timed ? format_duration(static_cast<double>(max_ns)) : "-", 8) +
         (sampled ? sampled_columns(sampled_of(r, f.name), window_of(f.name),
                                    instrument_of(measure, f.name, window_of(f.name), rule, sampled_of(r, f.name)))
                  : "") +
         "  " +
         f.entry_placement + " (" +
         f.entry_cost_class + ")" + (calls && !timed ? ", counting calls only" : "");
    if (unmatched || dropped) {
      s += "  [unmatched " + std::to_string(unmatched) + ", dropped " + std::to_string(dropped) + "]";
    }
    uint64_t unmatched_returns = 0;
    for (const auto& run : r.runs)
      if (const auto* fr = run.find(f.name)) unmatched_returns += fr->unmatched_returns;
    if (unmatched_returns > calls / 100) {
      s += "\n" + pad_right("", w) + "  ^ many returns without an entry: more calls in flight than max_in_flight? (raise it in gate.yaml)";
    }
    s += "\n";
  }
  if (sampled) {
    uint64_t period = 0;
    for (const auto& run : r.runs) period = std::max(period, run.sample_period_ns);
    char b[700];
    const std::string per_call = std::isfinite(cost) ? "gate's probes cost " + format_duration(cost) +
                                                           " a traced call here, measured as the run started"
                                                     : "not known: the probes' cost was not measured";
    snprintf(b, sizeof b,
             "cpu/call: CPU time per call from cpu-clock samples (%.0f Hz), without gate's probes and less declared "
             "callees'; probes: the share of its window that is gate's probes (%s); by: what its verdict is judged "
             "by (measure: auto: both its latency and its CPU samples; \"waits\": its window is mostly off CPU, so "
             "only its latency can call it unchanged; probes*: its samples are ruled out by its windows)\n",
             period ? 1e9 / static_cast<double>(period) : 0.0, per_call.c_str());
    s += b;
  }
  return s + benchmark_run_table(r);
}

}  // namespace gate::report
