// JUnit XML: testsuites > testsuite > (properties, testcase*, system-out). Every attribute and text
// is escaped (Go names hold quotes, brackets and, in generics, < > &).
#include "report/junit_report.hpp"

#include <cmath>

#include "explain/explain.hpp"
#include "explain/verdict_text.hpp"
#include "report/annotations_section.hpp"
#include "report/benchmark_section.hpp"
#include "report/report_util.hpp"
#include "report/text_report.hpp"

namespace gate::report {
namespace {

std::string attr(const std::string& name, const std::string& value) { return " " + name + "=\"" + xml_escape(value) + "\""; }

// Below 0.001 the digits say nothing a reader acts on, and they are the least reproducible ones.
std::string p_value(double p) {
  if (!std::isfinite(p)) return "-";
  return p < 0.001 ? "<0.001" : fmt("%.3g", p);
}

// The numbers behind one function's verdict, one line per quantile.
std::string details(const stats::FunctionComparison& f) {
  std::string out;
  for (const auto& q : f.quantiles) {
    out += q.name + ": " + std::string(stats::to_string(q.verdict));
    if (q.tested()) {
      out += ", base " + format_duration(q.base_ns) + " -> head " + format_duration(q.head_ns) + ", head/base " +
             format_ratio(q) + ", thresholds +" + percent(q.band.regression) + " / -" + percent(q.band.improvement) +
             ", adjusted p (regression) " + p_value(q.p_regression_adjusted) + ", runs " +
             std::to_string(q.base_runs_used) + " / " + std::to_string(q.head_runs_used);
    }
    if (const std::string reason = explain::reason(q); !reason.empty()) out += ": " + reason;
    out += "\n";
  }
  out += "calls per run: " + calls_cell(f) + "\n";
  return out;
}

double measured_seconds(const ResultFile* r) {
  double s = 0;
  if (r)
    for (const auto& run : r->runs) s += run.duration_s;
  return s;
}

std::string properties(const stats::Comparison& c, const ReportInputs& in) {
  std::string out = "    <properties>\n";
  auto property = [&](const std::string& name, const std::string& value) {
    out += "      <property" + attr("name", name) + attr("value", value) + "/>\n";
  };
  property("gate.command", in.command);
  if (!in.subject.empty()) property("gate.subject", in.subject);
  property("gate.exit_code", std::to_string(static_cast<int>(c.exit_code)));
  property("gate.headline", headline_counts(c));
  if (const std::string heading = suspect_heading(c); !heading.empty()) property("gate.suspects", heading);
  property("gate.base", in.base_label);
  property("gate.head", in.head_label);
  property("gate.base_runs", std::to_string(c.base_runs));
  property("gate.head_runs", std::to_string(c.head_runs));
  property("gate.thresholds", thresholds_line(c));
  property("gate.method", explain::method(c));
  for (size_t i = 0; i < in.notices.size(); ++i) property("gate.notice." + std::to_string(i + 1), in.notices[i]);
  return out + "    </properties>\n";
}

// A function's testcase: a regression is a failure (with what to do next), missing data is skipped.
std::string testcase(const stats::FunctionComparison& f, const NextSteps& next, bool suspects_fail,
                     const Annotations* notes) {
  std::string out = "    <testcase" + attr("name", f.name) + attr("classname", go_package(f.name)) + attr("time", "0");
  std::string numbers = details(f);
  std::string why;  // the profile line (and code line) in the failure message
  for (const auto& l : annotation_lines(f, notes)) {
    numbers += l + "\n";
    if (l.starts_with("profile: ") || l.starts_with("code: ")) why += "; " + l;
  }
  switch (f.verdict) {
    case stats::Verdict::kRegression: {
      std::string body = numbers;
      if (!next.rerun.empty()) body += "reproduce: " + next.rerun + "\n";
      if (!next.accept.empty()) body += "accept: " + next.accept + "\n";
      if (!next.accept_note.empty()) body += "  (" + next.accept_note + ")\n";
      return out + ">\n      <failure" + attr("type", "regression") + attr("message", "regression: " + explain::verdict_reason(f, true) + why) +
             ">" + xml_escape(body) + "</failure>\n    </testcase>\n";
    }
    case stats::Verdict::kSuspect:
      if (suspects_fail)
        return out + ">\n      <failure" + attr("type", "suspect") + attr("message", "suspected regression: " + explain::verdict_reason(f) + why) +
               ">" + xml_escape(numbers) + "</failure>\n    </testcase>\n";
      return out + ">\n      <system-out>" + xml_escape("SUSPECTED REGRESSION (passes: fail_on_suspect is off): " +
                                                    explain::verdict_reason(f) + "\n" + numbers) +
             "</system-out>\n    </testcase>\n";
    case stats::Verdict::kInsufficientData:
      return out + ">\n      <skipped" + attr("message", "insufficient data: " + explain::verdict_reason(f)) + "/>\n" +
             "      <system-out>" + xml_escape(numbers) + "</system-out>\n    </testcase>\n";
    default:
      return out + ">\n      <system-out>" + xml_escape(numbers) + "</system-out>\n    </testcase>\n";
  }
}

}  // namespace

std::string render_junit(const stats::Comparison& c, const ReportInputs& in) {
  const int compared = static_cast<int>(c.functions.size());
  const int one_sided = static_cast<int>(c.only_in_base.size() + c.only_in_head.size());
  int tests = compared + one_sided;
  int failures = 0;
  for (const auto& f : c.functions)
    failures += f.verdict == stats::Verdict::kRegression || (c.suspects_fail && f.verdict == stats::Verdict::kSuspect);
  const std::string benchmark_cases = benchmark_junit(c, &tests, &failures);
  const int skipped = c.counts.insufficient_data + one_sided;
  // Time spent measuring in this job: the head runs, and the base runs too when gate ab made them.
  const double seconds = measured_seconds(in.head) + (in.command == "ab" ? measured_seconds(in.base) : 0.0);
  const std::string time = fmt("%.3f", seconds);

  std::string suite = "gate " + (in.command.empty() ? std::string("compare") : in.command);
  if (!in.subject.empty()) suite += " " + in.subject;

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites" + attr("name", "gate") + attr("tests", std::to_string(tests)) +
         attr("failures", std::to_string(failures)) + attr("errors", "0") + attr("skipped", std::to_string(skipped)) +
         attr("time", time) + ">\n";
  out += "  <testsuite" + attr("name", suite) + attr("tests", std::to_string(tests)) +
         attr("failures", std::to_string(failures)) + attr("errors", "0") + attr("skipped", std::to_string(skipped)) +
         attr("time", time);
  if (in.head && !in.head->context.started_at.empty()) {
    std::string ts = in.head->context.started_at;  // Ant writes local ISO 8601 without a zone
    if (!ts.empty() && ts.back() == 'Z') ts.pop_back();
    out += attr("timestamp", ts);
  }
  if (in.head && !in.head->context.hostname.empty()) out += attr("hostname", in.head->context.hostname);
  out += ">\n";

  out += properties(c, in);

  for (const auto& f : c.functions) out += testcase(f, in.next, c.suspects_fail, in.notes);
  auto one_side = [&](const std::vector<std::string>& names, const char* where) {
    for (const auto& n : names)
      out += "    <testcase" + attr("name", n) + attr("classname", go_package(n)) + attr("time", "0") +
             ">\n      <skipped" + attr("message", std::string("only in ") + where + ": not compared") +
             "/>\n    </testcase>\n";
  };
  one_side(c.only_in_base, "base");
  one_side(c.only_in_head, "head");
  out += benchmark_cases;

  std::string log;
  if (const std::string heading = suspect_heading(c); !heading.empty()) {
    log += "SUSPECT " + heading + "\n";
    for (const auto& line : explain::suspect_lines(c)) log += "  " + line + "\n";
  }
  if (const std::string e = extension_line(c); !e.empty()) log += e + "\n";
  for (const auto& n : in.notices) log += "NOTE: " + n + "\n";
  for (const auto& w : warnings_of(c, in)) log += "warning: " + w + "\n";
  log += summary_line(c) + "\n";
  out += "    <system-out>" + xml_escape(log) + "</system-out>\n";
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace gate::report
