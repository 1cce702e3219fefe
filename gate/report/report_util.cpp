// Escaping (XML/HTML, Markdown, shell), UTF-8 repair, headline counts and verdict reasons shared by
// the report formats.
#include "report/report_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "explain/explain.hpp"
#include "explain/verdict_text.hpp"
#include "report/text_report.hpp"

namespace gate::report {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is malformed (overlong forms,
// surrogates and code points above U+10FFFF included).
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string xml_escape(std::string_view raw) {
  const std::string s = valid_utf8(raw);
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': case '\n': case '\r': out += static_cast<char>(c); break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += kReplacement;
        } else if (c == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
                   (static_cast<unsigned char>(s[i + 2]) == 0xBE || static_cast<unsigned char>(s[i + 2]) == 0xBF)) {
          out += kReplacement;  // U+FFFE and U+FFFF are not XML characters either
          i += 2;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string md_escape(std::string_view raw) {
  const std::string s = valid_utf8(raw);
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    switch (c) {
      case '\\': case '`': case '*': case '_': case '[': case ']': case '<': case '>': case '|': case '~':
      case '#':
        out += '\\';
        out += c;
        break;
      case '&': out += "&amp;"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::string md_code(std::string_view raw) {
  std::string s = valid_utf8(raw);
  std::string body;
  for (char c : s) {
    if (c == '|') body += "\\|";  // GitHub splits table cells on | even inside code spans
    else if (c == '`') body += '\'';  // never in a Go symbol; keeps the span closed
    else if (c == '\n') body += ' ';
    else body += c;
  }
  return "`" + body + "`";
}


std::string headline_counts(const stats::Comparison& c) {
  const auto& n = c.counts;
  auto count = [](int k, const char* one, const char* many) { return std::to_string(k) + " " + (k == 1 ? one : many); };
  std::string s = count(n.regression, "regression", "regressions") + ", ";
  if (n.suspect) s += count(n.suspect, "suspected regression", "suspected regressions") + ", ";
  s += count(n.improvement, "improvement", "improvements") + ", " + std::to_string(n.unchanged) + " unchanged";
  if (n.inconclusive) s += ", " + std::to_string(n.inconclusive) + " inconclusive";
  if (n.insufficient_data) s += ", " + std::to_string(n.insufficient_data) + " insufficient data";
  if (c.benchmarks.present()) {  // a benchmark regression fails the gate too: the headline must say so
    const auto& b = c.benchmarks.counts;
    s += "; benchmark metrics: " + count(b.regression, "regression", "regressions") + ", " +
         count(b.improvement, "improvement", "improvements") + ", " + std::to_string(b.unchanged) + " unchanged";
    if (b.inconclusive) s += ", " + std::to_string(b.inconclusive) + " inconclusive";
  }
  return s;
}

std::string suspect_heading(const stats::Comparison& c) {
  int n = 0;
  for (const auto& f : c.functions) n += f.verdict == stats::Verdict::kSuspect;
  for (const auto& m : c.benchmarks.metrics) n += m.test.verdict == stats::Verdict::kSuspect;
  if (c.common_shift_tested && c.common_shift.verdict == stats::Verdict::kSuspect) ++n;
  if (n == 0) return "";
  return std::string(n == 1 ? "1 suspected regression" : std::to_string(n) + " suspected regressions") +
         ": past the threshold by its own test, but not proven after the correction for " + std::to_string(c.tests) +
         " tests; " +
         (c.suspects_fail ? "fails the build (fail_on_suspect: true)"
                          : "passes the build (set fail_on_suspect: true, or --fail-on-suspect, to fail on it)");
}


std::string extension_line(const stats::Comparison& c) {
  const auto& e = c.extension;
  if (e.units <= 0) return "";
  std::string tests;
  for (size_t i = 0; i < e.tests.size(); ++i) tests += (i ? ", " : "") + e.tests[i];
  return "measured past max_runs (" + std::to_string(e.max_units) + ") to " + std::to_string(e.units) +
         (c.paired ? " pairs of runs" : " runs a side") + ": " + tests +
         " read past the threshold and looked decidable soon at the measured noise (the looks' correction covers "
         "every run up to suspect_max_runs)";
}

bool needs_attention(stats::Verdict v) {
  return v == stats::Verdict::kRegression || v == stats::Verdict::kSuspect || v == stats::Verdict::kInconclusive ||
         v == stats::Verdict::kInsufficientData;
}

std::vector<std::string> quantile_names(const stats::Comparison& c) {
  std::vector<std::string> names;
  for (const auto& f : c.functions)
    for (const auto& q : f.quantiles)
      if (std::find(names.begin(), names.end(), q.name) == names.end()) names.push_back(q.name);
  return names;
}

std::vector<std::string> warnings_of(const stats::Comparison& c, const ReportInputs& in) {
  return explain::warnings(c, in.notes ? in.notes->warnings : std::vector<std::string>{});
}

std::string next_step_text(const NextSteps& next, const std::function<std::string(const std::string&)>& code,
                           const std::function<std::string(const std::string&)>& escape) {
  std::string out;
  if (!next.rerun.empty()) out += " Reproduce: " + code(next.rerun) + ".";
  const std::string note = escape(next.accept_note);
  if (!next.accept.empty())
    out += " Accept the change: " + code(next.accept) + (note.empty() ? "" : " (" + note + ")") + ".";
  else if (!note.empty())
    out += " Accept the change: " + note + ".";
  return out;
}

std::string not_compared_text(const std::string& lead, const std::vector<std::string>& names,
                              const std::function<std::string(const std::string&)>& code) {
  std::string out = lead + " (not compared): ";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + code(names[i]);
  return out;
}

std::string closing_sections(const stats::Comparison& c, const ReportInputs& in, const Markup& m) {
  std::string out;
  if (c.counts.regression && !in.next.empty()) {
    std::vector<std::string> items;
    for (const auto& f : c.functions)
      if (f.verdict == stats::Verdict::kRegression)
        items.push_back(m.name(f.name) + " " + m.escape(explain::verdict_reason(f, true)) + "." +
                        next_step_text(in.next, m.command, m.escape));
    out += m.list("What to do next", "next", items);
  }
  if (auto warnings = warnings_of(c, in); !warnings.empty()) {
    for (auto& w : warnings) w = m.escape(w);
    out += m.list("Warnings", "warnings", warnings);
  }
  for (const auto& [side, names] : {std::pair{"base", &c.only_in_base}, std::pair{"head", &c.only_in_head}})
    if (!names->empty()) out += m.paragraph(not_compared_text(std::string("Only in ") + side, *names, m.name));
  return out;
}


std::string go_package(std::string_view symbol) {
  // Type arguments of a generic ("pkg.Map[example.com/x.T]") hold slashes of their own.
  const size_t bracket = symbol.find('[');
  const std::string_view head = symbol.substr(0, bracket);
  const size_t slash = head.rfind('/');
  const size_t dot = head.find('.', slash == std::string_view::npos ? 0 : slash + 1);
  return std::string(dot == std::string_view::npos ? head : head.substr(0, dot));
}

}  // namespace gate::report
