// Plain-text report: notices, a table of functions (columns padded to their widest cell), reasons
// and next steps, warnings, one-sided functions and the summary. Colour only when asked for.
#include "report/text_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "common/format.hpp"
#include "explain/explain.hpp"
#include "explain/verdict_text.hpp"
#include "report/annotations_section.hpp"
#include "report/benchmark_section.hpp"
#include "report/report_util.hpp"
#include "stats/instrument.hpp"

namespace gate::report {
namespace {

// Three significant digits of v (1 <= v < 1000, or 0): "4.56", "45.6", "456".
std::string sig3(double v) {
  if (v >= 99.95) return fmt("%.0f", v);
  if (v >= 9.995) return fmt("%.1f", v);
  return fmt("%.2f", v);
}

std::vector<std::string> columns_for(const stats::Comparison& c, const ReportInputs& o) {
  return o.quantiles.empty() ? quantile_names(c) : o.quantiles;
}

// ANSI colour of a verdict cell; unchanged stays plain.
const char* verdict_colour(stats::Verdict v) {
  switch (v) {
    case stats::Verdict::kRegression: return "\x1b[1;31m";
    case stats::Verdict::kSuspect: return "\x1b[1;33m";
    case stats::Verdict::kInconclusive: return "\x1b[33m";
    case stats::Verdict::kInsufficientData: return "\x1b[35m";
    case stats::Verdict::kImprovement: return "\x1b[32m";
    case stats::Verdict::kUnchanged: return "";
  }
  return "";
}

}  // namespace

std::string calls_cell(const stats::FunctionComparison& f) {
  std::string s = fmt("%.0f", f.base_calls_per_run) + " -> " + fmt("%.0f", f.head_calls_per_run);
  if (f.calls_changed) {
    s += std::isinf(f.calls_ratio) ? " (new)" : " (" + fmt("%.2f", f.calls_ratio) + "x)";
    if (f.calls_failed) s += " FAIL";
  }
  return s;
}

// "thresholds: +3% / -3%", then a quantile whose functions mostly share another band
// ("p99 +25% / -25%"), then the single exceptions a config set per function. The most common band
// is taken as the default, overall and per quantile (ties: the first seen).
std::string thresholds_line(const stats::Comparison& c) {
  auto most_common = [](const std::vector<std::string>& bands) {
    std::vector<std::pair<std::string, int>> seen;
    for (const auto& b : bands) {
      auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == b; });
      if (it == seen.end()) seen.emplace_back(b, 1); else ++it->second;
    }
    return std::max_element(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  };
  std::vector<std::string> all;  // every quantile's band, in order (formatted once: 10,000 functions make 30,000)
  std::vector<std::pair<std::string, std::vector<std::string>>> per_quantile;  // in order of appearance
  for (const auto& f : c.functions)
    for (const auto& q : f.quantiles) {
      all.push_back(explain::band_text(q.band));
      auto it = std::find_if(per_quantile.begin(), per_quantile.end(), [&](const auto& p) { return p.first == q.name; });
      if (it == per_quantile.end()) per_quantile.push_back({q.name, {all.back()}}); else it->second.push_back(all.back());
    }
  if (all.empty()) return "";
  const std::string common = most_common(all);
  std::string line = "thresholds: " + common;
  std::map<std::string, std::string> quantile_default;
  for (const auto& [name, bands] : per_quantile) {
    quantile_default[name] = most_common(bands);
    if (quantile_default[name] != common) line += ", " + name + " " + quantile_default[name];
  }
  std::string except;
  size_t k = 0;
  for (const auto& f : c.functions)
    for (const auto& q : f.quantiles) {
      const std::string& band = all[k++];
      if (band != quantile_default[q.name]) except += (except.empty() ? "" : ", ") + f.name + " " + q.name + " " + band;
    }
  if (!except.empty()) line += " except " + except;
  return line;
}

std::string format_duration(double ns) {
  if (std::isnan(ns)) return "-";
  if (ns < 0) return "-" + format_duration(-ns);
  if (ns < 999.5) return fmt("%.0f", ns) + "ns";
  if (ns < 999.5e3) return sig3(ns / 1e3) + "us";
  if (ns < 999.5e6) return sig3(ns / 1e6) + "ms";
  if (ns < 999.5e9) return sig3(ns / 1e9) + "s";
  return fmt("%.0f", ns / 1e9) + "s";
}


std::string summary_line(const stats::Comparison& c) {
  // The last line of a CI log counts everything that set the exit code: a benchmark metric's
  // regression fails the gate as a function's does (issue 54: "gate: 0 regressions ..." closed a
  // log whose exit 1 came from a benchmark named 11 lines above), so the metrics' verdicts are
  // counted with the functions' and the parenthesis says how many of each.
  stats::VerdictCounts n = c.counts;
  const auto& b = c.benchmarks.counts;
  for (auto v : {stats::Verdict::kRegression, stats::Verdict::kSuspect, stats::Verdict::kInconclusive,
                 stats::Verdict::kInsufficientData, stats::Verdict::kUnchanged, stats::Verdict::kImprovement})
    n[v] += b[v];
  std::string what = plural(c.functions.size(), "function");
  if (c.benchmarks.present()) {
    std::set<std::string> names;
    for (const auto& m : c.benchmarks.metrics) names.insert(m.benchmark);
    what += ", " + plural(c.benchmarks.metrics.size(), "benchmark metric") + " of " + plural(names.size(), "benchmark");
  }
  std::string s = "gate: " + plural(static_cast<size_t>(n.regression), "regression") + ", " +
                  (n.suspect ? plural(static_cast<size_t>(n.suspect), "suspected regression") + ", " : "") +
                  plural(static_cast<size_t>(n.improvement), "improvement") + ", " + std::to_string(n.unchanged) +
                  " unchanged, " + std::to_string(n.inconclusive) + " inconclusive";
  if (n.insufficient_data) s += ", " + std::to_string(n.insufficient_data) + " insufficient data";
  const std::string runs = c.base_runs == c.head_runs
                               ? plural(static_cast<size_t>(c.base_runs), "run") + " a side"
                               : std::to_string(c.base_runs) + " base / " + std::to_string(c.head_runs) + " head runs";
  if (c.common_shift_tested && c.common_shift.verdict == stats::Verdict::kRegression)
    s += ", every function slower together (" + fmt("%.2fx", c.common_shift.ratio) + ")";
  s += " (" + what + ", " + runs + "; " + explain::method_short(c) + ")";
  return s;
}

std::string common_shift_line(const stats::Comparison& c) {
  const auto& q = c.common_shift;
  if (!q.tested()) return "";
  std::string s = explain::common_shift_label() + " (the runs' speed, head/base): " + format_ratio(q) + " " +
                  std::string(stats::to_string(q.verdict));
  if (!c.common_shift_tested)
    s += " (shown, not tested: the base runs were not measured beside the head's)";
  else if (const std::string reason = explain::reason(q); !reason.empty())
    s += ": " + reason;
  return s;
}

namespace {

// Rows of cells; a row with one cell is a free-form line (a reason) printed as is. colour[i] is the
// ANSI colour of row i's first cell ("" for none).
struct Table {
  std::vector<std::vector<std::string>> rows;
  std::vector<const char*> colour;
  void line(std::string text) {
    rows.push_back({std::move(text)});
    colour.push_back("");
  }
};

std::vector<std::string> function_row(const stats::FunctionComparison& f, const std::vector<std::string>& quantiles) {
  std::vector<std::string> row = {std::string(stats::to_string(f.verdict)), f.name};
  const bool cpu_column = std::find(quantiles.begin(), quantiles.end(), stats::kSampledTestName) != quantiles.end();
  if (f.instrument == 1 && !cpu_column) {  // measured by CPU samples alone: its one test in the first columns
    const auto* q = f.quantiles.empty() ? nullptr : &f.quantiles.front();
    for (size_t i = 0; i < quantiles.size(); ++i) {
      const bool first = i == 0 && q && q->tested();
      row.push_back(first ? q->name + " " + format_duration(q->base_ns) + " -> " + format_duration(q->head_ns) : "-");
      row.push_back(first ? format_ratio(*q) : "-");
    }
    row.push_back(calls_cell(f));
    return row;
  }
  for (const auto& name : quantiles) {
    const auto* q = f.find(name);
    if (q && q->tested()) {
      row.push_back(format_duration(q->base_ns) + " -> " + format_duration(q->head_ns));
      row.push_back(format_ratio(*q));
    } else {
      row.push_back("-");
      row.push_back("-");
    }
  }
  row.push_back(calls_cell(f));
  return row;
}

// A function measured by CPU samples (issue 39): what its figure is and why it was chosen.
std::string instrument_line(const stats::FunctionComparison& f) {
  std::string s = "measured by CPU samples: cpu/call is its CPU time per call without gate's probes";
  if (f.probe_share >= 0) s += fmt(" (the probes were %.0f%% of its sampled time)", 100 * f.probe_share);
  return s;
}

// The lines under a function: why (reasons) and, for a regression, what to do next.
void function_notes(const stats::FunctionComparison& f, const ReportInputs& o, Table& t) {
  if (o.reasons && f.instrument == 1)
    t.line("    " + instrument_line(f));
  if (o.reasons) {
    for (const auto& q : f.quantiles)
      if (const std::string reason = explain::reason(q); !reason.empty())
        t.line("    " + q.name + ": " + std::string(stats::to_string(q.verdict)) + ": " + reason);
    for (const auto& q : f.quantiles)
      if (const std::string note = explain::note(q); !note.empty() && q.tested()) t.line("    " + q.name + ": " + note);
    if (f.calls_changed)
      t.line("    calls per run changed " + fmt("%.0f", f.base_calls_per_run) + " -> " + fmt("%.0f", f.head_calls_per_run) +
             (f.calls_failed ? ": fails by the calls policy" : ": reported only (calls policy)"));
  }
  if (f.verdict == stats::Verdict::kRegression) {
    if (!o.next.rerun.empty()) t.line("    reproduce: " + o.next.rerun);
    if (!o.next.accept.empty() || !o.next.accept_note.empty())
      t.line("    accept:    " + o.next.accept +
             (o.next.accept_note.empty() ? "" : (o.next.accept.empty() ? "" : "  # ") + o.next.accept_note));
  }
}

// Columns padded to their widest cell; padding is counted on the plain cell (escape codes take no
// columns on a terminal).
std::string layout(const Table& t) {
  std::vector<size_t> width(t.rows.front().size(), 0);
  for (const auto& r : t.rows)
    if (r.size() > 1)
      for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (size_t k = 0; k < t.rows.size(); ++k) {
    const auto& r = t.rows[k];
    std::string text;
    if (r.size() == 1) {
      text = r[0];
    } else {
      for (size_t i = 0; i < r.size(); ++i) {
        text += i == 0 && *t.colour[k] ? t.colour[k] + r[i] + "\x1b[0m" : r[i];
        if (i + 1 < r.size()) text += std::string(width[i] - r[i].size() + 2, ' ');
      }
    }
    out += text + "\n";
  }
  return out;
}

// Warnings, one-sided functions, thresholds, method and the summary line.
std::string footer(const stats::Comparison& c, const ReportInputs& in) {
  std::string out;
  if (const std::string cs = common_shift_line(c); !cs.empty()) out += "\n" + cs + "\n";
  if (const auto warnings = warnings_of(c, in); !warnings.empty()) {
    out += "\nwarnings:\n";
    for (const auto& w : warnings) out += "  " + w + "\n";
  }
  auto list = [&](const char* what, const std::vector<std::string>& names) {
    if (!names.empty()) out += "\n" + not_compared_text(what, names, [](const std::string& s) { return s; }) + "\n";
  };
  list("only in base", c.only_in_base);
  list("only in head", c.only_in_head);
  out += "\n";
  if (const std::string t = thresholds_line(c); !t.empty()) out += t + "\n";
  out += "method: " + explain::method(c) + "\n";
  out += summary_line(c) + "\n";
  return out;
}

}  // namespace

std::string render_text(const stats::Comparison& c, const ReportInputs& o) {
  const auto quantiles = columns_for(c, o);
  Table t;
  std::vector<std::string> header = {"verdict", "function"};
  for (const auto& q : quantiles) {
    header.push_back(q + " base -> head");
    header.push_back(q + " head/base [CI]");
  }
  header.push_back("calls/run base -> head");
  t.rows.push_back(header);
  t.colour.push_back("");
  for (const auto& f : c.functions) {
    if (o.quiet && f.verdict == stats::Verdict::kUnchanged) continue;
    t.rows.push_back(function_row(f, quantiles));
    t.colour.push_back(o.color ? verdict_colour(f.verdict) : "");
    function_notes(f, o, t);
    for (const auto& line : annotation_lines(f, o.notes)) t.line("    " + line);
  }
  std::string out;
  for (const auto& n : o.notices) out += "NOTE: " + n + "\n";
  if (!o.notices.empty()) out += "\n";
  if (const std::string heading = suspect_heading(c); !heading.empty()) {
    out += (o.color ? "\x1b[1;33mSUSPECT\x1b[0m " : "SUSPECT ") + heading + "\n";
    for (const auto& line : explain::suspect_lines(c)) out += "  " + line + "\n";
    out += "\n";
  }
  if (c.extension.units > 0) out += extension_line(c) + "\n\n";
  std::string why;
  for (const auto& line : annotation_summary_lines(o.notes)) why += line + "\n";
  return out + layout(t) + (why.empty() ? "" : "\n" + why) + benchmark_text(c, o.quiet) + footer(c, o);
}

}  // namespace gate::report
