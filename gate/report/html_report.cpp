// HTML report: the same facts as the Markdown report, plus an SVG plot per function of the base and
// head latency CDFs built from the runs' histograms. Plain SVG drawn by the browser itself: nothing
// is fetched and nothing runs, so the file works offline, as a CI artifact, forever.
#include "report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "explain/explain.hpp"
#include "explain/verdict_text.hpp"
#include "report/annotations_section.hpp"
#include "report/benchmark_section.hpp"
#include "report/report_util.hpp"
#include "report/text_report.hpp"

namespace gate::report {
namespace {

constexpr const char* kBaseColour = "#2563eb";  // blue
constexpr const char* kHeadColour = "#ea580c";  // orange: distinguishable with the common colour blindnesses

// Plot geometry, in SVG user units.
constexpr double kWidth = 760, kHeight = 300;
constexpr double kLeft = 58, kRight = 16, kTop = 36, kBottom = 46;

std::string num(double v) { return fmt("%.1f", v); }

std::string css_class(stats::Verdict v) {
  std::string s(stats::to_string(v));
  std::replace(s.begin(), s.end(), ' ', '-');
  return "v-" + s;
}

// A log10 time axis and a linear 0..1 fraction axis mapped onto the plot area.
struct Axes {
  double lo = 0, hi = 1;  // log10(ns) at the left and right edges
  double x(double ns) const {
    const double l = std::log10(std::max(ns, 1.0));
    const double t = std::clamp((l - lo) / (hi - lo), 0.0, 1.0);
    return kLeft + t * (kWidth - kLeft - kRight);
  }
  // Linear up to 0.9 on the lower 60% of the height, then stretched toward the tail: 0.99 at 80%,
  // 0.999 at the top. On a plain 0..1 axis p99 sits a hair below the top edge, unreadable.
  double y(double fraction) const {
    const double f = std::clamp(fraction, 0.0, 1.0);
    const double t = f <= 0.9 ? 0.6 * f / 0.9 : 0.6 + 0.4 * std::min(1.0, std::log10(0.1 / std::max(1 - f, 1e-12)) / 2);
    return kHeight - kBottom - t * (kHeight - kTop - kBottom);
  }
};

// The CDF of a histogram as an SVG path: linear inside a bucket (as the quantiles are interpolated),
// flat between buckets, from the left edge at 0 to the right edge at 1. Points closer than half a
// unit to the last one kept are dropped: a plot holds dozens of runs of hundreds of buckets.
std::string cdf_path(const LatencyHistogram& h, const Axes& a) {
  std::string d;
  double last_x = -1, last_y = -1;
  auto point = [&](double x, double y, bool force) {
    if (!force && std::abs(x - last_x) < 0.5 && std::abs(y - last_y) < 0.5) return;
    d += (d.empty() ? "M" : " L") + num(x) + " " + num(y);
    last_x = x;
    last_y = y;
  };
  const double total = static_cast<double>(h.count());
  point(kLeft, a.y(0), true);
  uint64_t cum = 0;
  double prev_upper = -1;
  for (const auto& [bucket, count] : h.buckets()) {
    const double lower = static_cast<double>(LatencyHistogram::lower_ns(bucket));
    const double upper = lower + static_cast<double>(LatencyHistogram::width_ns(bucket));
    if (lower != prev_upper) point(a.x(lower), a.y(cum / total), false);
    cum += count;
    point(a.x(upper), a.y(cum / total), false);
    prev_upper = upper;
  }
  point(a.x(prev_upper), a.y(1), true);
  point(kWidth - kRight, a.y(1), true);
  return d;
}

// The histograms of one function on one side: one per run that called it, and all runs merged.
struct SideData {
  std::vector<const LatencyHistogram*> runs;
  LatencyHistogram pooled;
};

SideData side_data(const ResultFile* r, const std::string& name) {
  SideData s;
  if (!r) return s;
  for (const auto& run : r->runs) {
    const FunctionRun* fr = run.find(name);
    if (!fr || fr->histogram.empty()) continue;
    s.runs.push_back(&fr->histogram);
    s.pooled.merge(fr->histogram);
  }
  return s;
}

// Tick values m * 10^k inside [lo, hi] (log10 ns): 1-2-5 steps, thinned or refined to 3..10 ticks.
std::vector<double> ticks(const Axes& a) {
  auto pick = [&](std::initializer_list<int> mantissas) {
    std::vector<double> out;
    for (int k = static_cast<int>(std::floor(a.lo)) - 1; k <= static_cast<int>(std::ceil(a.hi)) + 1; ++k)
      for (int m : mantissas) {
        const double v = m * std::pow(10.0, k);
        const double l = std::log10(v);
        if (l >= a.lo - 1e-9 && l <= a.hi + 1e-9) out.push_back(v);
      }
    return out;
  };
  auto t = pick({1, 2, 5});
  if (t.size() > 10) t = pick({1});
  if (t.size() < 3) t = pick({1, 2, 3, 4, 5, 6, 7, 8, 9});
  if (t.size() < 2) t = {std::pow(10.0, a.lo + 0.1 * (a.hi - a.lo)), std::pow(10.0, a.hi - 0.1 * (a.hi - a.lo))};
  return t;
}

// The fraction of calls a quantile marks (p50 -> 0.5); NaN for the mean, which has no level.
double level_of(const std::string& quantile) {
  try {
    const auto spec = stats::QuantileSpec::parse(quantile);
    return spec.is_mean ? std::numeric_limits<double>::quiet_NaN() : spec.q;
  } catch (const std::exception&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

// The time axis spans every recorded call of both sides, plus a margin.
Axes axes_for(const SideData& base, const SideData& head) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto* side : {&base, &head}) {
    if (side->pooled.empty()) continue;
    const auto& b = side->pooled.buckets();
    lo = std::min(lo, std::max(1.0, static_cast<double>(LatencyHistogram::lower_ns(b.front().first))));
    hi = std::max(hi, static_cast<double>(LatencyHistogram::lower_ns(b.back().first) +
                                          LatencyHistogram::width_ns(b.back().first)));
  }
  Axes a;
  a.lo = std::log10(lo);
  a.hi = std::log10(std::max(hi, lo * 1.01));
  if (a.hi - a.lo < 0.25) {
    const double mid = (a.hi + a.lo) / 2;
    a.lo = mid - 0.125;
    a.hi = mid + 0.125;
  }
  const double pad = 0.04 * (a.hi - a.lo);
  a.lo -= pad;
  a.hi += pad;

  return a;
}

// The frame, the grid and the axis labels.
std::string frame(const Axes& a) {
  const double left = kLeft, right = kWidth - kRight, top = kTop, bottom = kHeight - kBottom;
  std::string s;
  s += "<rect class=\"frame\" x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(right - left) +
       "\" height=\"" + num(bottom - top) + "\" fill=\"#ffffff\" stroke=\"#9ca3af\"/>\n";
  s += "<g class=\"grid\" stroke=\"#e5e7eb\" stroke-width=\"1\">\n";
  for (double v : ticks(a))
    s += "<line x1=\"" + num(a.x(v)) + "\" y1=\"" + num(top) + "\" x2=\"" + num(a.x(v)) + "\" y2=\"" + num(bottom) + "\"/>\n";
  for (double fr : {0.25, 0.5, 0.75, 0.9, 0.99})
    s += "<line x1=\"" + num(left) + "\" y1=\"" + num(a.y(fr)) + "\" x2=\"" + num(right) + "\" y2=\"" + num(a.y(fr)) + "\"/>\n";
  s += "</g>\n<g class=\"axis\" font-size=\"11\" fill=\"#374151\">\n";
  for (double v : ticks(a))
    s += "<text x=\"" + num(a.x(v)) + "\" y=\"" + num(bottom + 15) + "\" text-anchor=\"middle\">" +
         xml_escape(format_duration(v)) + "</text>\n";
  for (double fr : {0.0, 0.25, 0.5, 0.9, 0.99, 0.999})
    s += "<text x=\"" + num(left - 6) + "\" y=\"" + num(a.y(fr) + 4) + "\" text-anchor=\"end\">" +
         fmt("%g", fr) + "</text>\n";
  s += "<text x=\"" + num((left + right) / 2) + "\" y=\"" + num(kHeight - 8) +
       "\" text-anchor=\"middle\">latency per call (log scale)</text>\n";
  s += "<text transform=\"translate(14 " + num((top + bottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">fraction of calls &#8804; x (tail stretched)</text>\n</g>\n";

  return s;
}

// One thin CDF per run and a thick one for the runs pooled.
std::string side_paths(const SideData& d, const Axes& a, const char* cls, const char* colour, const char* label) {
  if (d.pooled.empty()) return "";
  std::string s = "<g class=\"" + std::string(cls) + "\">\n";
  for (const auto* h : d.runs)
    s += "<path class=\"cdf run " + std::string(cls) + "\" d=\"" + cdf_path(*h, a) + "\" fill=\"none\" stroke=\"" +
         colour + "\" stroke-width=\"1\" stroke-opacity=\"0.35\"/>\n";
  s += "<path class=\"cdf pooled " + std::string(cls) + "\" d=\"" + cdf_path(d.pooled, a) +
       "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2.2\"><title>" + label + ": " +
       std::to_string(d.runs.size()) + " runs, " + std::to_string(d.pooled.count()) +
       " calls pooled</title></path>\n</g>\n";
  return s;
}

// The compared estimates: where the statistics put each quantile (geometric mean of the runs').
std::string quantile_markers(const stats::FunctionComparison& f, const Axes& a) {
  const double left = kLeft, right = kWidth - kRight, top = kTop, bottom = kHeight - kBottom;
  std::string s;
  for (const auto& q : f.quantiles) {
    if (!q.tested()) continue;
    const double level = level_of(q.name);
    const double y = std::isnan(level) ? top : a.y(level);
    if (!std::isnan(level))
      s += "<line class=\"level\" x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(right) + "\" y2=\"" +
           num(y) + "\" stroke=\"#9ca3af\" stroke-dasharray=\"2 3\"/>\n";
    for (int k = 0; k < 2; ++k) {
      const bool is_base = k == 0;
      const double ns = is_base ? q.base_ns : q.head_ns;
      if (!(ns > 0)) continue;
      const double x = a.x(ns);
      const char* colour = is_base ? kBaseColour : kHeadColour;
      s += "<g class=\"marker " + std::string(is_base ? "base" : "head") + "\"><title>" + q.name + " " +
           (is_base ? "base " : "head ") + xml_escape(format_duration(ns)) +
           (is_base ? "" : " (" + xml_escape(format_ratio(q)) + ", " + std::string(stats::to_string(q.verdict)) + ")") +
           "</title><line x1=\"" + num(x) + "\" y1=\"" + num(bottom) + "\" x2=\"" + num(x) + "\" y2=\"" + num(y) +
           "\" stroke=\"" + colour + "\" stroke-dasharray=\"4 3\"/><circle cx=\"" + num(x) + "\" cy=\"" + num(y) +
           "\" r=\"4\" fill=\"" + colour + "\" stroke=\"#ffffff\"/><text x=\"" + num(x + (is_base ? -6 : 6)) +
           "\" y=\"" + num(y - 6) + "\" font-size=\"11\" text-anchor=\"" + (is_base ? "end" : "start") +
           "\" fill=\"" + colour + "\">" + xml_escape(q.name) + "</text></g>\n";
    }
  }

  return s;
}

// The legend, above the plot area.
std::string legend(const SideData& base, const SideData& head) {
  const double left = kLeft, right = kWidth - kRight;
  std::string s;
  s += "<g class=\"legend\" font-size=\"12\" fill=\"#111827\">\n";
  double lx = left;
  for (int k = 0; k < 2; ++k) {
    const SideData& d = k == 0 ? base : head;
    const char* colour = k == 0 ? kBaseColour : kHeadColour;
    const std::string text = std::string(k == 0 ? "base" : "head") +
                             (d.pooled.empty() ? ": no calls" : " (" + std::to_string(d.runs.size()) + " runs)");
    s += "<line x1=\"" + num(lx) + "\" y1=\"14\" x2=\"" + num(lx + 22) + "\" y2=\"14\" stroke=\"" + colour +
         "\" stroke-width=\"2.2\"/><text x=\"" + num(lx + 28) + "\" y=\"18\">" + xml_escape(text) + "</text>\n";
    lx += 150;
  }
  s += "<text x=\"" + num(right) + "\" y=\"18\" text-anchor=\"end\" fill=\"#6b7280\">thin: one run; thick: all runs</text>\n";
  s += "</g>\n</svg>\n";
  return s;
}

std::string plot(const stats::FunctionComparison& f, const SideData& base, const SideData& head, size_t index) {
  const std::string id = "plot-" + std::to_string(index);
  std::string s = "<svg class=\"plot\" id=\"" + id + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
                  "\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) + "\" role=\"img\" aria-labelledby=\"" +
                  id + "-title\">\n<title id=\"" + id + "-title\">Latency distribution of " + xml_escape(f.name) +
                  ": base (blue) and head (orange), cumulative, log time axis</title>\n";
  if (base.pooled.empty() && head.pooled.empty()) {
    s += "<text class=\"empty\" x=\"" + num(kWidth / 2) + "\" y=\"" + num(kHeight / 2) +
         "\" text-anchor=\"middle\">no calls recorded on either side</text>\n</svg>\n";
    return s;
  }
  const Axes a = axes_for(base, head);
  s += frame(a);
  s += side_paths(base, a, "base", kBaseColour, "base");
  s += side_paths(head, a, "head", kHeadColour, "head");
  s += quantile_markers(f, a);
  s += legend(base, head);
  return s;
}

// " -&gt; " (calls_cell's arrow) as the arrow the other cells use.
std::string arrows(std::string s) {
  for (size_t at; (at = s.find(" -&gt; ")) != std::string::npos;) s.replace(at, 7, " &#8594; ");
  return s;
}

std::string row_cells(const stats::FunctionComparison& f, const std::vector<std::string>& quantiles) {
  std::string s;
  for (const auto& name : quantiles) {
    const auto* q = f.find(name);
    if (q && q->tested()) {
      s += "<td class=\"num\">" + xml_escape(format_duration(q->base_ns)) + " &#8594; " +
           xml_escape(format_duration(q->head_ns)) + "</td><td class=\"num" +
           (q->verdict == stats::Verdict::kRegression ? " bad" : "") + "\">" + xml_escape(format_ratio(*q)) + "</td>";
    } else {
      s += "<td class=\"num\">-</td><td class=\"num\">-</td>";
    }
  }
  return s;
}

const char* kStyle = R"CSS(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #e5e7eb; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 18px 0 6px; font-weight: 600; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.headline { font-size: 16px; font-weight: 600; padding: 8px 12px; border-radius: 6px; display: inline-block; }
.outcome-pass { background: #dcfce7; color: #14532d; }
.outcome-regression { background: #fee2e2; color: #7f1d1d; }
.outcome-measure { background: #fef3c7; color: #78350f; }
.notice { background: #fef3c7; border-left: 4px solid #d97706; padding: 6px 10px; margin: 8px 0; }
.meta, .method { color: #4b5563; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #e5e7eb; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f9fafb; font-weight: 600; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.bad { color: #b91c1c; font-weight: 600; }
.v-regression { color: #b91c1c; font-weight: 700; }
.v-suspect { color: #c2410c; font-weight: 700; }
.suspects { background: #ffedd5; border-left: 4px solid #c2410c; padding: 6px 10px; margin: 8px 0; }
.v-inconclusive { color: #b45309; }
.v-insufficient-data { color: #7c3aed; }
.v-improvement { color: #15803d; }
.v-unchanged { color: #6b7280; }
tr.why td { color: #4b5563; font-size: 12.5px; border-top: none; padding-top: 0; }
table.results { width: 100%; }
.next code { background: #f3f4f6; padding: 1px 4px; border-radius: 3px; }
svg.plot { display: block; max-width: 100%; height: auto; background: #ffffff; }
.caption { color: #4b5563; font-size: 12.5px; margin: 2px 0 0; }
svg.flame { display: block; max-width: 100%; height: auto; background: #ffffff; }
svg.flame text { pointer-events: none; fill: #111827; }
.why li { font-size: 12.5px; }
)CSS";

}  // namespace

namespace {

// The table of functions, with the why of a verdict under its row.
std::string functions_table(const stats::Comparison& c, const ReportInputs& in) {
  std::string h;
  const auto quantiles = quantile_names(c);
  h += "<h2>Functions</h2>\n<table class=\"results\">\n<thead><tr><th>verdict</th><th>function</th>";
  for (const auto& q : quantiles)
    h += "<th>" + xml_escape(q) + " base &#8594; head</th><th>" + xml_escape(q) + " head/base [CI]</th>";
  h += "<th>calls/run base &#8594; head</th></tr></thead>\n<tbody>\n";
  const size_t columns = 3 + 2 * quantiles.size();
  for (size_t i = 0; i < c.functions.size(); ++i) {
    const auto& f = c.functions[i];
    if (in.quiet && f.verdict == stats::Verdict::kUnchanged) continue;
    h += "<tr class=\"" + css_class(f.verdict) + "\"><td class=\"" + css_class(f.verdict) + "\">" +
         xml_escape(std::string(stats::to_string(f.verdict))) + "</td><td><a href=\"#fn-" + std::to_string(i) +
         "\"><code>" + xml_escape(f.name) + "</code></a></td>" + row_cells(f, quantiles) + "<td class=\"num\">" +
         arrows(xml_escape(calls_cell(f))) + "</td></tr>\n";
    // The why under the numbers, across the row: a column of its own squeezes the table.
    if (const std::string why = explain::verdict_reason(f); !why.empty() && f.verdict != stats::Verdict::kImprovement)
      h += "<tr class=\"why\"><td></td><td colspan=\"" + std::to_string(columns - 1) + "\">" + xml_escape(why) + "</td></tr>\n";
  }
  h += "</tbody>\n</table>\n";

  return h;
}

// The HTML of the closing sections (closing_sections): titled lists, names and commands as code.
std::string html_code(const std::string& s) { return "<code>" + xml_escape(s) + "</code>"; }
const Markup kHtmlMarkup{
    .escape = [](const std::string& s) { return xml_escape(s); },
    .name = html_code,
    .command = html_code,
    .list =
        [](const std::string& title, const char* css, const std::vector<std::string>& items) {
          std::string h = "<h2>" + title + "</h2>\n<ul class=\"" + css + "\">\n";
          for (const auto& item : items) h += "<li>" + item + "</li>\n";
          return h + "</ul>\n";
        },
    .paragraph = [](const std::string& s) { return "<p>" + s + "</p>\n"; },
};

// Per function with annotations: its code and profile lines and its differential flame graph.
std::string why_section(const stats::Comparison& c, const ReportInputs& in) {
  std::string body;
  for (const auto& f : c.functions) {
    if (in.quiet && f.verdict == stats::Verdict::kUnchanged) continue;
    const std::string h = annotation_html(f, in.notes);
    if (!h.empty())
      body += "<section class=\"function\"><h3><span class=\"" + css_class(f.verdict) + "\">" +
              xml_escape(std::string(stats::to_string(f.verdict))) + "</span> <code>" + xml_escape(f.name) +
              "</code></h3>\n" + h + "</section>\n";
  }
  std::string summary;
  for (const auto& l : annotation_summary_lines(in.notes)) summary += "<li>" + xml_escape(l) + "</li>";
  if (body.empty() && summary.empty()) return "";
  return "<h2>Why: code and CPU profile</h2>\n<p class=\"caption\">Annotations beside the verdicts; they never "
         "change one.</p>\n" + (summary.empty() ? "" : "<ul>" + summary + "</ul>\n") + body;
}

// Per function: its plot and a caption with the compared numbers.
std::string distributions(const stats::Comparison& c, const ReportInputs& in) {
  std::string h;
  h += "<h2>Distributions</h2>\n";
  if (!in.base || !in.head) {
    h += "<p>No run data was given: the distributions cannot be drawn.</p>\n";
  } else {
    h += "<p class=\"caption\">Cumulative distribution of call latency per function on a log time axis; the "
         "fraction axis is linear up to 0.9 and stretched above it, so that p99 and p99.9 can be read. Thin lines are "
         "single runs, thick lines all runs pooled; markers show each compared quantile as the statistics estimate it "
         "(the winsorized geometric mean of the runs' quantiles).</p>\n";
    for (size_t i = 0; i < c.functions.size(); ++i) {
      const auto& f = c.functions[i];
      if (in.quiet && f.verdict == stats::Verdict::kUnchanged) continue;
      h += "<section class=\"function\" id=\"fn-" + std::to_string(i) + "\">\n<h3><span class=\"" + css_class(f.verdict) +
           "\">" + xml_escape(std::string(stats::to_string(f.verdict))) + "</span> <code>" + xml_escape(f.name) +
           "</code></h3>\n";
      h += plot(f, side_data(in.base, f.name), side_data(in.head, f.name), i);
      std::string caption;
      for (const auto& q : f.quantiles) {
        if (!caption.empty()) caption += "; ";
        caption += q.name + ": " +
                   (q.tested() ? format_duration(q.base_ns) + " \xE2\x86\x92 " + format_duration(q.head_ns) + " (" +
                                     format_ratio(q) + ")"
                               : std::string(stats::to_string(q.verdict)));
      }
      caption += "; calls/run " + calls_cell(f);
      h += "<p class=\"caption\">" + xml_escape(caption) + "</p>\n</section>\n";
    }
  }

  return h;
}

}  // namespace

std::string render_html(const stats::Comparison& c, const ReportInputs& in) {
  std::string title = "gate " + (in.command.empty() ? std::string("compare") : in.command);
  if (!in.subject.empty()) title += " (" + in.subject + ")";
  const std::string outcome = c.exit_code == ExitCode::kRegression ? "regression"
                              : c.exit_code == ExitCode::kOk       ? "pass"
                                                                   : "measure";
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                  xml_escape(title + ": " + headline_counts(c)) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  h += "<header>\n<h1>" + xml_escape(title) + "</h1>\n<p class=\"headline outcome-" + outcome + "\">" +
       xml_escape(headline_counts(c)) +
       (c.exit_code == ExitCode::kMeasure ? " &#8212; could not measure enough (exit 3)" : "") + "</p>\n";
  for (const auto& n : in.notices) h += "<p class=\"notice\"><strong>Note:</strong> " + xml_escape(n) + "</p>\n";
  if (const std::string heading = suspect_heading(c); !heading.empty()) {
    h += "<div class=\"suspects\"><strong>Suspected regression.</strong> " + xml_escape(heading) + "<ul>\n";
    for (const auto& line : explain::suspect_lines(c)) h += "<li>" + xml_escape(line) + "</li>\n";
    h += "</ul></div>\n";
  }
  if (const std::string e = extension_line(c); !e.empty()) h += "<p class=\"notice\">" + xml_escape(e) + "</p>\n";
  const std::string runs = c.base_runs == c.head_runs
                               ? std::to_string(c.base_runs) + " runs a side"
                               : std::to_string(c.base_runs) + " base / " + std::to_string(c.head_runs) + " head runs";
  h += "<p class=\"meta\">" + std::to_string(c.functions.size()) + " functions, " + runs + "; base: " +
       xml_escape(in.base_label) + ", head: " + xml_escape(in.head_label) + "</p>\n</header>\n";

  h += functions_table(c, in);
  h += benchmark_html(c);
  h += closing_sections(c, in, kHtmlMarkup);  // what to do next, warnings, one-sided functions
  h += why_section(c, in);
  h += distributions(c, in);
  std::string thresholds = thresholds_line(c);
  if (!thresholds.empty()) thresholds[0] = 'T';
  h += "<footer>\n<p class=\"method\">" + xml_escape(thresholds) + (thresholds.empty() ? "" : " &#183; ") +
       "Statistics: " + xml_escape(explain::method(c)) + "</p>\n<p class=\"method\">" + xml_escape(summary_line(c)) +
       "</p>\n</footer>\n</body>\n</html>\n";
  return h;
}

}  // namespace gate::report
