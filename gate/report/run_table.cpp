// gate run's table: per function, calls per run and quantiles of all runs pooled, clamped to the
// exact extremes the probe saw; the entry placement; unmatched and dropped counts when there are any.
#include "report/run_table.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "common/format.hpp"
#include "report/benchmark_section.hpp"
#include "report/text_report.hpp"

namespace gate::report {

std::string render_run_table(const ResultFile& r) {
  std::string s;
  size_t w = 8;
  for (const auto& f : r.functions) w = std::max(w, f.name.size());
  s += pad_right("function", w) + "  " + pad_left("calls/run", 10) + "  " + pad_left("p50", 8) + "  " +
       pad_left("p90", 8) + "  " + pad_left("p99", 8) + "  " + pad_left("max", 8) + "  entry probe\n";
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
    s += pad_right(f.name, w) + "  " + pad_left(c, 10) + "  " + pad_left(format_duration(q(0.5)), 8) + "  " +
         pad_left(format_duration(q(0.9)), 8) + "  " + pad_left(format_duration(q(0.99)), 8) + "  " +
         pad_left(calls ? format_duration(static_cast<double>(max_ns)) : "-", 8) + "  " + f.entry_placement + " (" +
         f.entry_cost_class + ")";
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
  return s + benchmark_run_table(r);
}

}  // namespace gate::report
