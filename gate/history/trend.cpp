// The trend page as HTML with inline SVG, log-scale latency axis (p50 and p99 differ by orders of
// magnitude), and its JSON.
#include "history/trend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gate::history {
namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char b[32];
  snprintf(b, sizeof b, "%.1f", v);
  return b;
}

const char* color_of(const std::string& q) {
  if (q == "p50") return "#1f5fbf";
  if (q == "p90") return "#2e8b57";
  return "#d2691e";
}

// Ticks on a log axis: 1, 2, 5 x 10^k inside [lo, hi].
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  for (double d = std::pow(10, std::floor(std::log10(lo))); d <= hi; d *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (m * d >= lo && m * d <= hi) out.push_back(m * d);
  return out;
}

std::string chart(const std::string& machine, const std::vector<const Series*>& series,
                  const std::vector<const Change*>& changes) {
  const Series& axis = *series.front();  // the commits of the first quantile label the x axis
  const size_t n = axis.points.size();
  const double W = 1080, H = 300, L = 80, R = 20, T = 34, B = 84;
  double lo = INFINITY, hi = 0;
  for (const auto* s : series)
    for (const auto& p : s->points) {
      lo = std::min(lo, p.lo);
      hi = std::max(hi, p.hi);
    }
  lo /= 1.15;
  hi *= 1.15;
  const auto x = [&](double i) { return L + (n <= 1 ? (W - L - R) / 2 : i * (W - L - R) / (n - 1)); };
  const auto y = [&](double v) {
    return T + (H - T - B) * (1 - (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)));
  };
  const auto index_of = [&](const std::string& commit) {
    for (size_t i = 0; i < n; ++i)
      if (axis.points[i].commit == commit) return static_cast<double>(i);
    return -1.0;
  };
  std::string o = "<svg viewBox='0 0 " + num(W) + " " + num(H) + "' width='100%' role='img'>";
  for (double t : log_ticks(lo, hi))
    o += "<line x1='" + num(L) + "' x2='" + num(W - R) + "' y1='" + num(y(t)) + "' y2='" + num(y(t)) +
         "' class='grid'/><text x='" + num(L - 6) + "' y='" + num(y(t) + 4) + "' class='ytick'>" + esc(fmt_ns(t)) +
         "</text>";
  for (size_t i = 0; i < n; ++i) {
    const auto& p = axis.points[i];
    o += "<text class='xtick' transform='translate(" + num(x(i) + 4) + "," + num(H - B + 12) +
         ") rotate(45)'><title>" + esc(p.commit + " " + p.time) + "</title>" + esc(p.commit.substr(0, 10)) +
         "</text>";
  }
  for (const auto* c : changes) {
    const double i = index_of(c->commit);
    if (i < 0) continue;
    const double cx = x(i - 0.5);
    char label[160];
    snprintf(label, sizeof label, "%s %.2fx from %s (p=%.3f)%s", c->quantile.c_str(), c->point.shift,
             c->commit.substr(0, 10).c_str(), c->point.p_value, c->point.provisional ? " provisional" : "");
    const bool first = c == changes.front() || c->commit != changes.front()->commit;
    o += "<line x1='" + num(cx) + "' x2='" + num(cx) + "' y1='" + num(T - 4) + "' y2='" + num(H - B) + "' class='" +
         (c->point.provisional ? "cp prov" : "cp") + "'/><text x='" + num(cx + 4) + "' y='" +
         num(T - 20 + (first ? 0 : 12) + 12 * (c->quantile == "p99")) + "' class='cplabel'>" + esc(label) + "</text>";
  }
  for (const auto* s : series) {
    std::string band, line, dots;
    for (size_t i = 0; i < s->points.size(); ++i) band += num(x(index_of(s->points[i].commit))) + "," + num(y(s->points[i].hi)) + " ";
    for (size_t i = s->points.size(); i-- > 0;) band += num(x(index_of(s->points[i].commit))) + "," + num(y(s->points[i].lo)) + " ";
    for (const auto& p : s->points) {
      const double px = x(index_of(p.commit));
      line += num(px) + "," + num(y(p.value)) + " ";
      dots += "<circle cx='" + num(px) + "' cy='" + num(y(p.value)) + "' r='3.5' fill='" + color_of(s->quantile) +
              "'><title>" + esc(s->quantile + " " + p.commit + ": " + fmt_ns(p.value) + " [" + fmt_ns(p.lo) + ", " +
                                fmt_ns(p.hi) + "] over " + std::to_string(p.runs) + " runs") +
              "</title></circle>";
    }
    o += "<polygon points='" + band + "' fill='" + color_of(s->quantile) + "' fill-opacity='0.15'/>";
    o += "<polyline points='" + line + "' fill='none' stroke='" + color_of(s->quantile) + "' stroke-width='2'/>" + dots;
  }
  o += "<text x='" + num(L) + "' y='" + num(H - 4) + "' class='axis'>commits, oldest first (machine " + esc(machine.substr(0, 16)) +
       ")</text></svg>";
  return o;
}

}  // namespace

std::string trend_html(const std::vector<TrendFunction>& fns, const Machines& machines, const std::string& source) {
  std::string o =
      "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>gate history: trend</title><style>"
      "body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1140px}"
      "h1{font-size:22px}h2{font-size:17px;margin:28px 0 2px;font-family:monospace}"
      ".meta{color:#555;font-size:12px;margin:0 0 4px}.grid{stroke:#e4e4e4}"
      ".ytick{font-size:11px;text-anchor:end;fill:#444}.xtick{font-size:10px;fill:#444;font-family:monospace}"
      ".axis{font-size:11px;fill:#666}.cp{stroke:#c00;stroke-width:1.5;stroke-dasharray:6 4}"
      ".cp.prov{stroke:#e69500;stroke-dasharray:2 3}.cplabel{font-size:12px;fill:#a00;font-weight:600}"
      "table{border-collapse:collapse;font-size:13px;margin:8px 0 12px}td,th{padding:3px 10px;border-bottom:1px solid #e4e4e4;"
      "text-align:left}td.fn{font-family:monospace}"
      ".legend span{display:inline-block;margin-right:18px}.sw{display:inline-block;width:22px;height:4px;"
      "vertical-align:middle;margin-right:6px}"
      "</style></head><body><h1>gate history: latency over commits</h1>"
      "<p class='meta'>From " + esc(source) +
      ". Points: each commit's median over its runs; bands: its fastest to slowest run. Dashed red lines: change "
      "points (E-divisive means, permutation test), labelled with the shift and the first commit after it; dotted "
      "orange: provisional (too few commits after it yet). Latency axis logarithmic.</p>"
      "<p class='legend'><span><i class='sw' style='background:#1f5fbf'></i>p50</span><span><i class='sw' "
      "style='background:#d2691e'></i>p99</span></p>";
  // What a reader opens the page for first: slowdowns, the best-supported (lowest p) first, then
  // the larger; then improvements; functions without changes last.
  struct Rank {
    int kind = 2;  // 0 slower, 1 only faster, 2 no change
    double p = 1, step = 0;
    bool operator<(const Rank& o) const {
      if (kind != o.kind) return kind < o.kind;
      if (p != o.p) return p < o.p;
      return step > o.step;
    }
  };
  const auto rank = [](const TrendFunction& f) {
    Rank r;
    for (const auto& c : f.changes) {
      const int kind = c.point.shift > 1 ? 0 : 1;
      if (kind < r.kind || (kind == r.kind && c.point.p_value < r.p)) {
        r.kind = kind;
        r.p = c.point.p_value;
      }
      if (kind == r.kind) r.step = std::max(r.step, std::fabs(std::log(c.point.shift)));
    }
    return r;
  };
  std::vector<const TrendFunction*> order;
  for (const auto& f : fns) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(), [&](const auto* a, const auto* b) { return rank(*a) < rank(*b); });
  // A table of every change point, in the same order, above the charts.
  std::string rows;
  for (const auto* f : order)
    for (const auto& c : f->changes) {
      char b[64];
      snprintf(b, sizeof b, "%.2fx</td><td>%.3f", c.point.shift, c.point.p_value);
      rows += "<tr><td class='fn'>" + esc(f->function) + "</td><td>" + esc(c.quantile) + "</td><td class='fn'>" +
              esc(c.commit.substr(0, 12)) + "</td><td>" + esc(fmt_ns(c.point.before)) + " &rarr; " +
              esc(fmt_ns(c.point.after)) + "</td><td>" + b + "</td><td>" +
              (c.point.provisional ? "provisional" : "") + "</td></tr>";
    }
  if (!rows.empty())
    o += "<table><tr><th>function</th><th>quantile</th><th>first commit after</th><th>level</th><th>shift</th>"
         "<th>p</th><th></th></tr>" + rows + "</table>";
  for (const auto* fp : order) {
    const TrendFunction& f = *fp;
    std::vector<std::string> ms;
    for (const auto& s : f.series)
      if (std::find(ms.begin(), ms.end(), s.machine) == ms.end()) ms.push_back(s.machine);
    for (const auto& m : ms) {
      std::vector<const Series*> ss;
      std::vector<const Change*> cs;
      for (const auto& s : f.series)
        if (s.machine == m) ss.push_back(&s);
      for (const auto& c : f.changes)
        if (c.machine == m) cs.push_back(&c);
      const auto mi = machines.find(m);
      o += "<h2>" + esc(f.function) + "</h2><p class='meta'>" + std::to_string(ss.front()->points.size()) +
           " commits on " + esc(mi == machines.end() ? m : mi->second.label()) + "; " + std::to_string(cs.size()) +
           " change point" + (cs.size() == 1 ? "" : "s") + "</p>" + chart(m, ss, cs);
    }
  }
  return o + "</body></html>\n";
}

nlohmann::json trend_json(const std::vector<TrendFunction>& fns, const Machines& machines, const ChangePointParams& p) {
  nlohmann::json series = nlohmann::json::array(), changes = nlohmann::json::array();
  for (const auto& f : fns) {
    for (const auto& s : f.series) series.push_back(series_json(s));
    for (const auto& c : f.changes) changes.push_back(change_json(c));
  }
  return {{"schema", "gate.history.trend"}, {"version", 1},       {"parameters", params_json(p)},
          {"machines", machines_json(machines)}, {"series", series}, {"changes", changes}};
}

}  // namespace gate::history
