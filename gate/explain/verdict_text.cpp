// The words of a verdict every report format shows alike (explain/verdict_text.hpp), from the
// values stats/ returns; moved here from report/ (issue 57) so that report/ lays out and never words.
#include "explain/verdict_text.hpp"

#include "common/format.hpp"
#include "explain/explain.hpp"

namespace gate::explain {

std::string common_shift_label() { return "all functions together"; }

std::string band_text(const stats::Band& b) { return "+" + percent(b.regression) + " / -" + percent(b.improvement); }

std::string format_ratio(const stats::QuantileComparison& q) {
  if (!q.tested()) return "-";
  return fmt("%.2f", q.ratio) + "x [" + fmt("%.2f", q.ci_low) + ", " + fmt("%.2f", q.ci_high) + "]";
}

std::string verdict_reason(const stats::FunctionComparison& f, bool regressions_only) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  for (const auto& q : f.quantiles) {
    if (regressions_only && q.verdict != stats::Verdict::kRegression) continue;
    const std::string note = explain::note(q), reason = explain::reason(q);
    switch (q.verdict) {
      case stats::Verdict::kRegression:
        add(q.name + " " + format_ratio(q) + " above +" + percent(q.band.regression) +
            (note.empty() ? "" : " (" + note + ")"));
        break;
      case stats::Verdict::kImprovement:
        add(q.name + " " + format_ratio(q) + " below -" + percent(q.band.improvement) +
            (note.empty() ? "" : " (" + note + ")"));
        break;
      case stats::Verdict::kSuspect:
      case stats::Verdict::kInconclusive:
      case stats::Verdict::kInsufficientData:
        add(q.name + " " + std::string(stats::to_string(q.verdict)) + (reason.empty() ? "" : ": " + reason));
        break;
      case stats::Verdict::kUnchanged:
        break;
    }
  }
  if (f.calls_changed && (f.calls_failed || !regressions_only)) {
    add("calls per run " + fmt("%.0f", f.base_calls_per_run) + " -> " +
        fmt("%.0f", f.head_calls_per_run) +
        (f.calls_failed ? " (fails by the calls policy)" : " (reported only)"));
  }
  return out;
}

std::vector<std::string> suspect_lines(const stats::Comparison& c) {
  std::vector<std::string> out;
  auto add = [&](const std::string& what, const stats::QuantileComparison& q) {
    if (q.verdict != stats::Verdict::kSuspect) return;
    out.push_back(what + " " + q.name + " " + format_ratio(q) + " (threshold +" + percent(q.band.regression) +
                  "): " + reason(q));
  };
  for (const auto& f : c.functions)
    for (const auto& q : f.quantiles) add(f.name, q);
  if (c.common_shift_tested) add(common_shift_label(), c.common_shift);
  for (const auto& m : c.benchmarks.metrics) add(m.benchmark, m.test);
  return out;
}

}  // namespace gate::explain
