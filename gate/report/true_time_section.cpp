// The calibration line and `gate run --summary`: pure renderings of a result's true-time fields.
#include "report/true_time_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/format.hpp"
#include "report/text_report.hpp"

namespace gate::report {

namespace {

// A calibrated cost with its range over the rounds: "0.42 us [0.40-0.47]" (not micros(): a figure
// and its range, to the hundredth).
std::string cost_figure_text(const CostFigure& f) {
  char b[96];
  std::snprintf(b, sizeof b, "%.2f us [%.2f-%.2f]", f.median_ns / 1000, f.low_ns / 1000, f.high_ns / 1000);
  return b;
}

struct SummaryRow {
  std::string name;
  uint64_t calls = 0;
  double total_ns = 0, self_ns = 0, raw_ns = 0;
  bool true_time = false;
};

std::string ms(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  return b;
}

// One side's per-call figures of a function: total, self, and by traced callee.
struct PerCall {
  uint64_t calls = 0;
  double total_ns = 0, self_ns = 0;
  std::map<std::string, double> callees;  // callee -> its time under this function, per call
  bool ok() const { return calls > 0; }
};

bool on_side(const RunResult& run, const std::string& side) {
  return run.variant.empty() || run.variant == side;
}

PerCall per_call(const ResultFile& r, const std::string& side, const std::string& fn) {
  PerCall p;
  for (const auto& run : r.runs) {
    if (!on_side(run, side)) continue;
    for (const auto& f : run.functions) {
      if (f.name == fn) {
        if (!f.true_time.present) return {};
        p.calls += f.calls;
        p.total_ns += static_cast<double>(f.sum_ns);
        p.self_ns += static_cast<double>(f.true_time.self_sum_ns);
      }
      for (const auto& c : f.true_time.callers)
        if (c.name == fn) p.callees[f.name] += static_cast<double>(c.sum_ns);
    }
  }
  if (!p.calls) return {};
  p.total_ns /= p.calls;
  p.self_ns /= p.calls;
  for (auto& [name, ns] : p.callees) ns /= p.calls;
  return p;
}

std::string signed_duration(double ns) {
  return (ns < 0 ? "-" : "+") + format_duration(std::fabs(ns));
}

}  // namespace

std::string attribution_line(const ResultFile& base, const ResultFile& head, const std::string& fn) {
  const PerCall b = per_call(base, "base", fn), h = per_call(head, "head", fn);
  if (!b.ok() || !h.ok()) return "";
  const double delta = h.total_ns - b.total_ns;
  std::vector<std::pair<std::string, double>> parts;
  std::map<std::string, double> callees = h.callees;
  for (const auto& [name, ns] : b.callees) callees[name] -= 0;  // present on either side
  for (const auto& [name, ns] : callees) {
    const auto bi = b.callees.find(name);
    const auto hi = h.callees.find(name);
    parts.emplace_back(name, (hi == h.callees.end() ? 0 : hi->second) - (bi == b.callees.end() ? 0 : bi->second));
  }
  std::sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return std::fabs(x.second) > std::fabs(y.second); });
  auto share = [&](double part) {
    char s[32];
    std::snprintf(s, sizeof s, " (%.0f%%)", delta != 0 ? 100 * part / delta : 0.0);
    return std::string(s);
  };
  std::string line = fn + " " + signed_duration(delta) + "/call:";
  for (size_t i = 0; i < parts.size() && i < 3; ++i)
    line += " " + parts[i].first + " " + signed_duration(parts[i].second) + share(parts[i].second) + ",";
  if (parts.size() > 3) line += " " + std::to_string(parts.size() - 3) + " more callees,";
  const double self = h.self_ns - b.self_ns;
  return line + " self " + signed_duration(self) + share(self);
}

std::vector<std::string> true_time_notices(const stats::Comparison& c, const ReportInputs& in) {
  std::vector<std::string> out = true_time_notices(in);
  if (!in.base || !in.head) return out;
  for (const auto& f : c.functions) {
    if (f.verdict != stats::Verdict::kRegression) continue;
    const std::string line = attribution_line(*in.base, *in.head, f.name);
    if (!line.empty()) out.push_back("where the time went: " + line);
  }
  return out;
}

std::string calibration_line(const ProbeCalibration& c) {
  if (!c.present)
    return "times are raw: each traced call carries its own probes' bias and its traced descendants' probe cost "
           "(--true-time subtracts them)";
  return "probe costs calibrated on this host (median [range] of " + std::to_string(c.rounds) + " rounds" +
         (c.from_cache ? ", cached " + c.measured_at : ", " + c.measured_at) + "): entry " + cost_figure_text(c.entry_jcc_full) +
         ", return " + cost_figure_text(c.return_full) + ", own bias " + cost_figure_text(c.bias_jcc) +
         "; times are compensated (a call's own bias and its traced descendants' probe cost subtracted)";
}

std::string preemption_line(const ResultFile& r, const std::string& label) {
  uint64_t taken = 0, changed = 0, calls = 0;
  for (const auto& run : r.runs) {
    taken += run.preempted_calls;
    changed += run.thread_changed_calls;
    for (const auto& f : run.functions) calls += f.calls;
  }
  return label + ": times exclude other processes' time on the threads' CPUs (exclude_preemption): " + std::to_string(taken) + " of " +
         std::to_string(calls) + " calls had some taken out; " + std::to_string(changed) +
         " returned on another thread than they entered on and kept theirs";
}

std::vector<std::string> true_time_notices(const ReportInputs& in) {
  std::vector<std::string> out;
  for (const auto& [res, label] : {std::pair{in.base, &in.base_label}, std::pair{in.head, &in.head_label}})
    if (res && res->context.preemption_excluded) out.push_back(preemption_line(*res, *label));
  const ProbeCalibration* b = in.base ? &in.base->context.calibration : nullptr;
  const ProbeCalibration* h = in.head ? &in.head->context.calibration : nullptr;
  if (b && h && b->present != h->present) {
    out.push_back(std::string("warning: ") + in.base_label + " times are " + (b->present ? "compensated" : "raw") +
                  " and " + in.head_label + " times are " + (h->present ? "compensated" : "raw") +
                  ": they differ by the probes' cost, not by the code; re-record the baseline with this gate");
  }
  // Results without true time on both sides (older gates, --raw-times) read as before.
  if (h && (h->present || (b && b->present))) out.push_back(in.head_label + ": " + calibration_line(*h));
  else if (b && b->present) out.push_back(in.base_label + ": " + calibration_line(*b));
  return out;
}

std::string render_summary(const ResultFile& r) {
  std::vector<SummaryRow> rows;
  for (const auto& fi : r.functions) {
    SummaryRow row{fi.name};
    for (const auto& run : r.runs) {
      const FunctionRun* f = run.find(fi.name);
      if (!f) continue;
      row.calls += f->calls;
      row.total_ns += static_cast<double>(f->sum_ns);
      row.true_time = row.true_time || f->true_time.present;
      row.self_ns += static_cast<double>(f->true_time.present ? f->true_time.self_sum_ns : f->sum_ns);
      row.raw_ns += static_cast<double>(f->true_time.present ? f->true_time.raw_sum_ns : f->sum_ns);
    }
    if (row.calls) rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const SummaryRow& a, const SummaryRow& b) { return a.total_ns > b.total_ns; });
  std::string out = calibration_line(r.context.calibration) + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%12s %14s %12s %14s %7s %7s  %s\n", "calls", "total", "per call", "self", "self%",
                "probe%", "function");
  out += line;
  for (const auto& row : rows) {
    std::snprintf(line, sizeof line, "%12llu %14s %12s %14s %7s %7s  %s\n", static_cast<unsigned long long>(row.calls),
                  ms(row.total_ns).c_str(), format_duration(row.total_ns / row.calls).c_str(), ms(row.self_ns).c_str(),
                  percent_of(row.self_ns, row.total_ns).c_str(),
                  row.true_time && r.context.calibration.present ? percent_of(row.raw_ns - row.total_ns, row.raw_ns).c_str() : "-",
                  row.name.c_str());
    out += line;
  }
  return out;
}

}  // namespace gate::report
