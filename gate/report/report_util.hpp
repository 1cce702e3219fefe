// Pieces every report format shares: escaping for XML/HTML, Markdown and the shell, the headline
// counts, the quantile columns, and the closing sections the Markdown and HTML reports write alike
// (the words of a verdict are explain/verdict_text's).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/format.hpp"
#include "report/report_inputs.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// Valid UTF-8: every malformed sequence replaced by U+FFFD. Warnings can carry a workload's
// stderr, which may hold any bytes; XML and JSON must not.
std::string valid_utf8(std::string_view s);
// Text for an XML/HTML element or a quoted attribute: & < > " ' escaped, control characters other
// than tab, newline and carriage return (not allowed in XML 1.0) replaced by U+FFFD, valid UTF-8.
std::string xml_escape(std::string_view s);
// Markdown prose: characters that would start emphasis, links, HTML or a table cell escaped.
std::string md_escape(std::string_view s);
// A Markdown code span for a Go name (`pkg.(*T).M`), safe inside a table cell.
std::string md_code(std::string_view s);

// "1 regression, 2 improvements, 11 unchanged" plus ", 1 inconclusive" and ", 2 insufficient
// data" when there are any.
std::string headline_counts(const stats::Comparison& c);
// The suspected regressions, for the top of every report: a heading ("1 suspected regression:
// ... passes the build ..."); the lines under it are explain::suspect_lines. Empty when there is none.
std::string suspect_heading(const stats::Comparison& c);
// When measure-until-decided went past max_runs for tests that read past their threshold: one
// line saying so ("measured past max_runs (10) to 16 pairs of runs for ..."); "" when it did not.
std::string extension_line(const stats::Comparison& c);
// Regressions, suspects, inconclusive verdicts and missing data: what a reader must look at.
bool needs_attention(stats::Verdict v);
// Quantile names in the order compared ("p50", "p99").
std::vector<std::string> quantile_names(const stats::Comparison& c);
// After a regression's line under "What to do next": " Reproduce: CMD. Accept the change: CMD
// (NOTE)." (the parts that are set), the commands through the format's `code`, the note through
// its `escape` (Markdown's and HTML's lists say the same).
std::string next_step_text(const NextSteps& next, const std::function<std::string(const std::string&)>& code,
                           const std::function<std::string(const std::string&)>& escape);

// The comparison's warnings and the measuring layer's (in.notes), in the order every format lists them.
std::vector<std::string> warnings_of(const stats::Comparison& c, const ReportInputs& in);
// The functions measured on one side only: "only in base (not compared): NAME, NAME" (`lead`
// first), each name through the format's `code` (the text, Markdown and HTML reports say the same).
std::string not_compared_text(const std::string& lead, const std::vector<std::string>& names,
                              const std::function<std::string(const std::string&)>& code);
// How the Markdown or the HTML report marks up its closing sections (closing_sections).
struct Markup {
  using Text = std::function<std::string(const std::string&)>;
  Text escape;   // prose from outside: reasons, warnings
  Text name;     // a function's name
  Text command;  // a command line (next_step_text's `code`)
  // A titled list of items already marked up; `css` names the HTML list's class.
  std::function<std::string(const std::string& title, const char* css, const std::vector<std::string>& items)> list;
  Text paragraph;  // a paragraph of its own (the one-sided functions)
};
// The end of the Markdown and HTML reports: what to do about each regression (next_step_text), the
// warnings (warnings_of), then the functions measured on one side only (not_compared_text), each
// part only when there is something to say.
std::string closing_sections(const stats::Comparison& c, const ReportInputs& in, const Markup& m);
// Numbers: fmt("%.3g", v) and percent(0.125) -> "12.5%" (a threshold as configured) are gate's
// (common/format.hpp), one definition for every folder.
// The Go package of a symbol: "example.com/shop.(*Cart).Add" -> "example.com/shop".
std::string go_package(std::string_view symbol);

}  // namespace gate::report
