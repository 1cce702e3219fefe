// Benchmark section renderers: one row per benchmark and unit, the same cells in every format.
#include "report/benchmark_section.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "common/format.hpp"
#include "common/numbers.hpp"
#include "explain/explain.hpp"
#include "explain/verdict_text.hpp"
#include "report/json_number.hpp"
#include "report/report_util.hpp"
#include "report/text_report.hpp"

namespace gate::report {
namespace {

using Json = nlohmann::ordered_json;

std::string verdict_of(const stats::BenchmarkMetricComparison& m) { return std::string(stats::to_string(m.test.verdict)); }

// The cells of one row: verdict, benchmark, unit, base -> head, head/base [CI].
std::vector<std::string> cells(const stats::BenchmarkMetricComparison& m) {
  return {verdict_of(m), m.benchmark, m.unit,
          benchmark_value(m.base_value, m.unit) + " -> " + benchmark_value(m.head_value, m.unit), benchmark_change(m)};
}

std::vector<const stats::BenchmarkMetricComparison*> shown(const stats::Comparison& c, bool quiet) {
  std::vector<const stats::BenchmarkMetricComparison*> out;
  for (const auto& m : c.benchmarks.metrics)
    if (!(quiet && m.test.verdict == stats::Verdict::kUnchanged)) out.push_back(&m);
  return out;
}

// Rows of cells, each column padded to its widest cell; `notes[k]` (if any) printed under row k.
std::string aligned(const std::vector<std::vector<std::string>>& rows, const std::vector<std::string>& notes = {}) {
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (size_t k = 0; k < rows.size(); ++k) {
    for (size_t i = 0; i < rows[k].size(); ++i)
      out += rows[k][i] + (i + 1 < rows[k].size() ? std::string(width[i] - rows[k][i].size() + 2, ' ') : "\n");
    if (k < notes.size() && !notes[k].empty()) out += notes[k];
  }
  return out;
}

// The one line that says which executions the figures came from ("" when unknown).
std::string source_line(const stats::BenchmarkComparison& b, const std::string& before, const std::string& after) {
  const std::string source = explain::benchmark_source(b);
  return source.empty() ? "" : before + source + after;
}

// The modes across executions (stats::BenchmarkModes), present only when a side showed them.
Json modes_json(const stats::BenchmarkMetricComparison& m) {
  const auto& md = m.modes;
  Json modes = Json::array();
  for (const auto& x : md.modes)
    modes.push_back(Json{{"base_value", json_number(x.base_value > 0 ? x.base_value : kNaN)},
                         {"head_value", json_number(x.head_value > 0 ? x.head_value : kNaN)},
                         {"base_share", x.base_share},
                         {"head_share", x.head_share},
                         {"base_executions", x.base_executions},
                         {"head_executions", x.head_executions},
                         {"worse_ratio", json_number(x.ratio)},
                         {"worse_ci_low", json_number(x.ci_low)},
                         {"worse_ci_high", json_number(x.ci_high)}});
  const char* fold = md.fold == stats::BenchmarkModes::Fold::kEveryMode ? "every mode" : "the fast mode";
  return Json{{"found_in", md.base_found && md.head_found ? "both" : md.base_found ? "base" : "head"},
              {"modes", modes},
              {"apart", md.apart},
              {"verdict_rests_on", fold},
              {"other_fold_worse_ratio", json_number(md.other_ratio)},
              {"other_fold_worse_ci_low", json_number(md.other_low)},
              {"other_fold_worse_ci_high", json_number(md.other_high)},
              {"note", explain::benchmark_modes(m)}};
}

std::string metric_details(const stats::BenchmarkMetricComparison& m) {
  std::string s = m.benchmark + " " + m.unit + ": " + verdict_of(m) + ", base " + benchmark_value(m.base_value, m.unit) +
                  " -> head " + benchmark_value(m.head_value, m.unit) + ", head/base " + benchmark_change(m) +
                  ", thresholds " + explain::band_text(m.test.band) + (m.higher_is_better ? " (higher is better)" : "");
  if (const std::string reason = explain::reason(m.test); !reason.empty()) s += ": " + reason;
  if (const std::string modes = explain::benchmark_modes(m); !modes.empty()) s += "; " + modes;
  return s;
}

}  // namespace

std::string benchmark_value(double v, const std::string& unit) {
  if (std::isnan(v)) return "-";
  if (unit == "ns/op") return format_duration(v) + "/op";
  if (unit == "cpu-ns/op") return format_duration(v) + "/op CPU";
  return fmt("%.4g", v) + " " + unit;
}

std::string benchmark_change(const stats::BenchmarkMetricComparison& m) {
  const auto& q = m.test;
  if (!q.tested() || std::isnan(q.ratio)) return "-";
  // A ratio against zero says nothing a reader can use (0 -> 1 allocs/op is "1000001x" inside).
  if (m.base_value == 0 && m.head_value != 0) return "from 0";
  if (m.head_value == 0 && m.base_value != 0) return "to 0";
  double r = q.ratio, lo = q.ci_low, hi = q.ci_high;
  if (m.higher_is_better) std::tie(r, lo, hi) = std::tuple(1 / q.ratio, 1 / q.ci_high, 1 / q.ci_low);
  return fmt("%.2f", r) + "x [" + fmt("%.2f", lo) + ", " + fmt("%.2f", hi) + "]";
}

std::string benchmark_summary(const stats::BenchmarkComparison& b) {
  const auto& n = b.counts;
  std::set<std::string> names;
  for (const auto& m : b.metrics) names.insert(m.benchmark);
  std::string s = "benchmarks: " + std::to_string(n.regression) + (n.regression == 1 ? " regression, " : " regressions, ") +
                  std::to_string(n.improvement) + (n.improvement == 1 ? " improvement, " : " improvements, ") +
                  std::to_string(n.unchanged) + " unchanged, " + std::to_string(n.inconclusive) + " inconclusive";
  if (n.insufficient_data) s += ", " + std::to_string(n.insufficient_data) + " insufficient data";
  return s + " (" + plural(b.metrics.size(), "metric") + " of " + plural(names.size(), "benchmark") + ")";
}

std::string benchmark_text(const stats::Comparison& c, bool quiet) {
  if (!c.benchmarks.present()) return "";
  std::vector<std::vector<std::string>> rows = {{"verdict", "benchmark", "unit", "base -> head", "head/base [CI]"}};
  std::vector<std::string> notes = {""};
  for (const auto* m : shown(c, quiet)) {
    rows.push_back(cells(*m));
    const std::string reason = explain::reason(m->test);
    const bool why = !reason.empty() && m->test.verdict != stats::Verdict::kUnchanged;
    std::string note = why ? "    " + m->unit + ": " + verdict_of(*m) + ": " + reason + "\n" : "";
    if (const std::string modes = explain::benchmark_modes(*m); !modes.empty()) note += "    " + m->unit + ": " + modes + "\n";
    notes.push_back(note);
  }
  return "\n" + aligned(rows, notes) + benchmark_summary(c.benchmarks) + "\n" + source_line(c.benchmarks, "", "\n");
}

std::string benchmark_markdown(const stats::Comparison& c, bool quiet) {
  if (!c.benchmarks.present()) return "";
  const std::string arrow = " \xE2\x86\x92 ";
  const std::string summary = benchmark_summary(c.benchmarks);  // "benchmarks: 1 regression, ..."
  std::string out = "**Benchmarks:** " + md_escape(summary.substr(summary.find(": ") + 2)) + "\n\n";
  out += "| verdict | benchmark | unit | base" + arrow + "head | head/base [CI] |\n|---|---|---|---:|---:|\n";
  for (const auto* m : shown(c, quiet)) {
    std::string change = md_escape(benchmark_change(*m));
    if (m->test.verdict == stats::Verdict::kRegression) change = "**" + change + "**";
    out += "| " + md_escape(verdict_of(*m)) + " | " + md_code(m->benchmark) + " | " + md_escape(m->unit) + " | " +
           md_escape(benchmark_value(m->base_value, m->unit)) + arrow + md_escape(benchmark_value(m->head_value, m->unit)) +
           " | " + change + " |\n";
  }
  std::string modes;
  for (const auto* m : shown(c, quiet))
    if (const std::string line = explain::benchmark_modes(*m); !line.empty())
      modes += "- " + md_code(m->benchmark) + " " + md_escape(m->unit) + ": " + md_escape(line) + "\n";
  return out + (modes.empty() ? "" : "\n" + modes) + source_line(c.benchmarks, "\n", "\n") + "\n";
}

std::string benchmark_html(const stats::Comparison& c) {
  if (!c.benchmarks.present()) return "";
  std::string out = "<h2>Benchmarks</h2>\n<p>" + xml_escape(benchmark_summary(c.benchmarks)) + "</p>\n";
  if (const std::string source = explain::benchmark_source(c.benchmarks); !source.empty())
    out += "<p>" + xml_escape(source) + "</p>\n";
  out += "<table class=\"benchmarks\">\n<tr><th>verdict</th><th>benchmark</th><th>unit</th><th>base &#8594; head</th>"
         "<th>head/base [CI]</th><th>why</th></tr>\n";
  for (const auto& m : c.benchmarks.metrics) {
    const auto row = cells(m);
    out += "<tr class=\"" + xml_escape(row[0]) + "\">";
    for (size_t i = 0; i < row.size(); ++i) out += "<td>" + xml_escape(row[i]) + "</td>";
    std::string why = explain::reason(m.test);
    if (const std::string modes = explain::benchmark_modes(m); !modes.empty()) why += (why.empty() ? "" : "; ") + modes;
    out += "<td>" + xml_escape(why) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

Json benchmark_json(const stats::Comparison& c) {
  if (!c.benchmarks.present()) return nullptr;
  const auto& b = c.benchmarks;
  Json metrics = Json::array();
  for (const auto& m : b.metrics) {
    const auto& q = m.test;
    metrics.push_back(Json{{"benchmark", m.benchmark},
                           {"unit", m.unit},
                           {"higher_is_better", m.higher_is_better},
                           {"verdict", verdict_of(m)},
                           {"base_value", json_number(m.base_value)},
                           {"head_value", json_number(m.head_value)},
                           {"change", benchmark_change(m)},
                           {"threshold", Json{{"regression", q.band.regression}, {"improvement", q.band.improvement}}},
                           {"worse_ratio", json_number(q.ratio)},
                           {"worse_ci_low", json_number(q.ci_low)},
                           {"worse_ci_high", json_number(q.ci_high)},
                           {"p_regression_adjusted", json_number(q.p_regression_adjusted)},
                           {"p_improvement_adjusted", json_number(q.p_improvement_adjusted)},
                           {"in_family", m.in_family},
                           {"base_runs_used", q.base_runs_used},
                           {"head_runs_used", q.head_runs_used},
                           {"paired", q.paired},
                           {"noise", json_number(q.noise)},
                           {"detectable_ratio", json_number(q.detectable)},
                           {"reason", explain::reason(q)}});
    if (m.modes.found()) metrics.back()["modes"] = modes_json(m);
  }
  return Json{{"summary", benchmark_summary(b)},
              {"counts", Json{{"regression", b.counts.regression},
                              {"improvement", b.counts.improvement},
                              {"unchanged", b.counts.unchanged},
                              {"inconclusive", b.counts.inconclusive},
                              {"insufficient_data", b.counts.insufficient_data}}},
              {"source", explain::benchmark_source(b)},
              {"metrics", metrics},
              {"only_in_base", b.only_in_base},
              {"only_in_head", b.only_in_head},
              {"warnings", explain::benchmark_warnings(b)}};
}

std::string benchmark_run_table(const ResultFile& r) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;  // (benchmark, unit) -> per result line
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& run : r.runs)
    for (const auto& b : run.benchmarks)
      for (const auto& [unit, v] : b.metrics) {
        auto& vs = values[{b.name, unit}];
        if (vs.empty()) order.emplace_back(b.name, unit);
        vs.push_back(v);
      }
  if (order.empty()) return "";
  const std::string source = explain::benchmark_source(stats::benchmark_source(r.runs));
  std::vector<std::vector<std::string>> rows = {{"benchmark", "unit", "median", "min", "max", "results"}};
  for (const auto& key : order) {
    auto vs = values[key];
    std::sort(vs.begin(), vs.end());
    rows.push_back({key.first, key.second, benchmark_value(median(vs), key.second), benchmark_value(vs.front(), key.second),
                    benchmark_value(vs.back(), key.second), std::to_string(vs.size())});
  }
  return "\n" + aligned(rows) + (source.empty() ? "" : source + "\n");
}

std::string benchmark_junit(const stats::Comparison& c, int* tests, int* failures) {
  std::string out;
  auto attr = [](const std::string& name, const std::string& value) { return " " + name + "=\"" + xml_escape(value) + "\""; };
  for (const auto& m : c.benchmarks.metrics) {
    ++*tests;
    out += "    <testcase" + attr("name", m.benchmark + " " + m.unit) + attr("classname", "benchmarks") + attr("time", "0");
    if (m.test.verdict == stats::Verdict::kRegression) {
      ++*failures;
      out += ">\n      <failure" + attr("type", "regression") +
             attr("message", "regression: " + m.unit + " " + benchmark_change(m)) + ">" + xml_escape(metric_details(m)) +
             "</failure>\n    </testcase>\n";
    } else {
      out += ">\n      <system-out>" + xml_escape(metric_details(m)) + "</system-out>\n    </testcase>\n";
    }
  }
  return out;
}

}  // namespace gate::report
