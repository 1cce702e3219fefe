// Markdown report: headline, attention table, folded rest, next steps, warnings, one method line.
// Every piece of text that comes from outside (names, reasons, warnings) is escaped.
#include "report/markdown_report.hpp"

#include <algorithm>

#include "explain/explain.hpp"
#include "explain/verdict_text.hpp"
#include "report/annotations_section.hpp"
#include "report/benchmark_section.hpp"
#include "report/report_util.hpp"
#include "report/text_report.hpp"

namespace gate::report {
namespace {

const char* verdict_mark(stats::Verdict v) {
  switch (v) {
    case stats::Verdict::kRegression: return "\xF0\x9F\x94\xB4 **regression**";           // red circle
    case stats::Verdict::kSuspect: return "\xF0\x9F\x9F\xA0 **suspect**";                 // orange circle
    case stats::Verdict::kInconclusive: return "\xF0\x9F\x9F\xA1 inconclusive";            // yellow circle
    case stats::Verdict::kInsufficientData: return "\xE2\x9A\xAA insufficient data";        // white circle
    case stats::Verdict::kImprovement: return "\xF0\x9F\x9F\xA2 improvement";              // green circle
    case stats::Verdict::kUnchanged: return "unchanged";
  }
  return "?";
}

// An inline code span for a command: the fence is longer than any run of backticks inside.
std::string inline_code(const std::string& s) {
  size_t longest = 0, run = 0;
  for (char ch : s) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const std::string pad = longest ? " " : "";
  return fence + pad + valid_utf8(s) + pad + fence;
}

std::string table(const std::vector<const stats::FunctionComparison*>& rows, const std::vector<std::string>& quantiles,
                  bool with_reason) {
  const std::string arrow = " \xE2\x86\x92 ";  // →
  std::string out = "| verdict | function |";
  std::string rule = "|---|---|";
  for (const auto& q : quantiles) {
    out += " " + q + " base" + arrow + "head | " + q + " head/base [CI] |";
    rule += "---:|---:|";
  }
  out += " calls/run base" + arrow + "head |";
  rule += "---:|";
  if (with_reason) {
    out += " why |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const auto* f : rows) {
    out += "| " + std::string(verdict_mark(f->verdict)) + " | " + md_code(f->name) + " |";
    for (const auto& name : quantiles) {
      const auto* q = f->find(name);
      if (q && q->tested()) {
        std::string ratio = md_escape(format_ratio(*q));
        if (q->verdict == stats::Verdict::kRegression) ratio = "**" + ratio + "**";
        out += " " + format_duration(q->base_ns) + arrow + format_duration(q->head_ns) + " | " + ratio + " |";
      } else {
        out += " - | - |";
      }
    }
    std::string calls = calls_cell(*f);
    const size_t at = calls.find(" -> ");
    if (at != std::string::npos) calls.replace(at, 4, arrow);
    out += " " + md_escape(calls) + " |";
    if (with_reason) out += " " + md_escape(explain::verdict_reason(*f)) + " |";
    out += "\n";
  }
  return out;
}

// The Markdown of the closing sections (closing_sections): bold titles over bulleted lists.
const Markup kMarkdownMarkup{
    .escape = [](const std::string& s) { return md_escape(s); },
    .name = md_code,
    .command = inline_code,
    .list =
        [](const std::string& title, const char*, const std::vector<std::string>& items) {
          std::string out = "**" + title + "**\n\n";
          for (const auto& item : items) out += "- " + item + "\n";
          return out + "\n";
        },
    .paragraph = [](const std::string& s) { return s + "\n\n"; },
};

}  // namespace

std::string render_markdown(const stats::Comparison& c, const ReportInputs& in) {
  std::string out;
  const char* status = c.exit_code == ExitCode::kRegression ? "\xE2\x9D\x8C"              // cross mark
                       : c.exit_code == ExitCode::kOk && c.counts.suspect == 0 ? "\xE2\x9C\x85"  // check mark
                                                            : "\xE2\x9A\xA0\xEF\xB8\x8F";  // warning sign
  std::string title = "gate " + (in.command.empty() ? std::string("compare") : in.command);
  if (!in.subject.empty()) title += " (" + in.subject + ")";
  out += "## " + std::string(status) + " " + md_escape(title) + ": " + headline_counts(c) + "\n\n";
  for (const auto& n : in.notices) out += "> **Note:** " + md_escape(n) + "\n>\n";
  if (!in.notices.empty()) {
    out.resize(out.size() - 2);  // no trailing empty quote line
    out += "\n";
  }
  std::string runs = c.base_runs == c.head_runs
                         ? std::to_string(c.base_runs) + " runs a side"
                         : std::to_string(c.base_runs) + " base / " + std::to_string(c.head_runs) + " head runs";
  out += std::to_string(c.functions.size()) + (c.functions.size() == 1 ? " function, " : " functions, ") + runs +
         "; base: " + md_escape(in.base_label) + ", head: " + md_escape(in.head_label) + ".";
  if (c.exit_code == ExitCode::kMeasure) out += " **Could not measure enough: the gate exits 3.**";
  out += "\n\n";
  if (const std::string heading = suspect_heading(c); !heading.empty()) {
    out += "> **Suspected regression.** " + md_escape(heading) + "\n>\n";
    for (const auto& line : explain::suspect_lines(c)) out += "> - " + md_escape(line) + "\n";
    out += "\n";
  }
  if (const std::string e = extension_line(c); !e.empty()) out += md_escape(e) + "\n\n";
  if (const std::string cs = common_shift_line(c); !cs.empty())
    out += (c.common_shift_tested && c.common_shift.verdict == stats::Verdict::kRegression ? "**" + md_escape(cs) + "**"
                                                                                            : md_escape(cs)) +
           "\n\n";

  const auto quantiles = quantile_names(c);
  std::vector<const stats::FunctionComparison*> attention, rest;
  for (const auto& f : c.functions) {
    if (needs_attention(f.verdict)) attention.push_back(&f);
    else if (!(in.quiet && f.verdict == stats::Verdict::kUnchanged)) rest.push_back(&f);
  }
  if (c.functions.empty()) out += "No function was compared.\n\n";
  if (!attention.empty()) out += table(attention, quantiles, true) + "\n";
  if (!rest.empty()) {
    std::string what;
    if (c.counts.improvement) what = std::to_string(c.counts.improvement) + (c.counts.improvement == 1 ? " improvement" : " improvements");
    if (c.counts.unchanged && !in.quiet) what += (what.empty() ? "" : ", ") + std::to_string(c.counts.unchanged) + " unchanged";
    out += "<details><summary>" + what + "</summary>\n\n" + table(rest, quantiles, false) + "\n</details>\n\n";
  }

  std::string why;
  for (const auto& f : c.functions) {
    const auto lines = annotation_lines(f, in.notes);
    if (lines.empty() || (in.quiet && f.verdict == stats::Verdict::kUnchanged)) continue;
    why += "- " + md_code(f.name) + "\n";
    for (const auto& l : lines)
      why += "  - " + (l.starts_with("pprof: ") ? "pprof: " + md_code(l.substr(7)) : md_escape(l)) + "\n";
  }
  for (const auto& l : annotation_summary_lines(in.notes)) why += "- " + md_escape(l) + "\n";
  if (!why.empty()) out += "**Why: code and CPU profile** (annotations; they never change a verdict)\n\n" + why + "\n";
  out += benchmark_markdown(c, in.quiet);

  out += closing_sections(c, in, kMarkdownMarkup);  // what to do next, warnings, one-sided functions

  std::string thresholds = thresholds_line(c);
  if (!thresholds.empty()) thresholds[0] = 'T';
  out += "<sub>" + md_escape(thresholds) + (thresholds.empty() ? "" : " \xC2\xB7 ") + "Statistics: " +
         md_escape(explain::method(c)) + "</sub>\n";
  return out;
}

}  // namespace gate::report
