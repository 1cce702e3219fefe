// Text and JSON of gate history show, changes and check.
#include "history/render.hpp"

#include <cmath>
#include <cstdio>

#include "common/format.hpp"

namespace gate::history {
namespace {

std::string machine_short(const Machines& m, const std::string& id) {
  const auto it = m.find(id);
  return it == m.end() ? id : it->second.label();
}

std::string change_line(const Change& c) {
  std::string s = "  " + c.function + " " + c.quantile + ": " + fmt("%.3fx", c.point.shift) + " from " +
                  short_commit(c.commit) + " (after " + short_commit(c.before_commit) + "), " +
                  fmt_ns(c.point.before) + " -> " + fmt_ns(c.point.after) + ", p=" +
                  fmt("%.3f", c.point.p_value);
  if (c.point.provisional) s += ", PROVISIONAL (too few commits after it to confirm)";
  return s + "\n";
}

}  // namespace

std::string short_commit(const std::string& sha) { return sha.substr(0, 12); }

std::string fmt_ns(double ns) {
  if (!std::isfinite(ns)) return "-";
  if (ns >= 1e9) return fmt("%.3g s", ns / 1e9);
  if (ns >= 1e6) return fmt("%.3g ms", ns / 1e6);
  if (ns >= 1e3) return fmt("%.3g us", ns / 1e3);
  return fmt("%.3g ns", ns);
}

nlohmann::json series_json(const Series& s) {
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& p : s.points)
    pts.push_back({{"commit", p.commit}, {"time", p.time}, {"value_ns", p.value}, {"lo_ns", p.lo}, {"hi_ns", p.hi},
                   {"runs", p.runs}, {"calls_per_run", p.calls}});
  return {{"function", s.function}, {"quantile", s.quantile}, {"machine", s.machine}, {"points", pts}};
}

nlohmann::json change_json(const Change& c) {
  return {{"function", c.function},          {"quantile", c.quantile},      {"machine", c.machine},
          {"commit", c.commit},              {"before_commit", c.before_commit}, {"index", c.point.index},
          {"shift", c.point.shift},          {"before_ns", c.point.before}, {"after_ns", c.point.after},
          {"p_value", c.point.p_value},      {"statistic", c.point.statistic},
          {"provisional", c.point.provisional}};
}

nlohmann::json params_json(const ChangePointParams& p) {
  return {{"method", "e-divisive means, permutation test"}, {"alpha", p.alpha}, {"permutations", p.permutations},
          {"min_segment", p.min_segment}, {"confirm_points", p.confirm_points}, {"min_shift", p.min_shift},
          {"seed", p.seed}};
}

nlohmann::json machines_json(const Machines& m) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [id, x] : m)
    out[id] = {{"cpu_model", x.cpu_model}, {"cpu_count", x.cpu_count}, {"kernel", x.kernel},
               {"go_version", x.go_version}, {"gate_version", x.gate_version}};
  return out;
}

std::string show_text(const std::string& function, const std::vector<Series>& series,
                      const std::vector<Change>& changes, const Machines& machines) {
  std::string out = function + "\n";
  std::string machine;
  for (const auto& s : series) {
    if (s.machine != machine) {
      machine = s.machine;
      out += "machine " + machine_short(machines, machine) + "\n";
    }
    out += " " + s.quantile + " over " + std::to_string(s.points.size()) + " commits:\n";
    for (const auto& p : s.points) {
      std::string mark;
      for (const auto& c : changes)
        if (c.machine == s.machine && c.quantile == s.quantile && c.commit == p.commit)
          mark = "  <- change " + fmt("%.3fx", c.point.shift) + fmt(" p=%.3f", c.point.p_value) +
                 (c.point.provisional ? " (provisional)" : "");
      out += "  " + short_commit(p.commit) + "  " + p.time + "  " + fmt_ns(p.value) + "  [" + fmt_ns(p.lo) + ", " +
             fmt_ns(p.hi) + "]  " + std::to_string(p.runs) + " runs" + mark + "\n";
    }
  }
  return out;
}

std::string changes_text(const std::vector<Change>& changes, const Machines& machines, size_t series_count) {
  std::string out;
  std::string machine = "\x01";
  for (const auto& c : changes) {
    if (c.machine != machine) {
      machine = c.machine;
      out += "machine " + machine_short(machines, machine) + ":\n";
    }
    out += change_line(c);
  }
  out += std::to_string(changes.size()) + " change point" + (changes.size() == 1 ? "" : "s") + " in " +
         std::to_string(series_count) + " series (function x quantile x machine)\n";
  return out;
}

std::string drift_text(const std::vector<Drift>& drifts, const std::vector<std::string>& not_pinned, double budget,
                       const std::string& since) {
  std::string out;
  int over = 0;
  for (const auto& d : drifts) {
    over += d.over;
    out += std::string(d.over ? "  OVER  " : "  ok    ") + d.function + " " + d.quantile + ": " +
           fmt("%.3fx", d.ratio) + " since " + short_commit(d.since_commit) + " (" + fmt_ns(d.since_value) +
           " -> " + fmt_ns(d.latest_value) + " at " + short_commit(d.latest_commit) + ", " +
           std::to_string(d.commits) + " commits)\n";
  }
  for (const auto& n : not_pinned) out += "  note  " + n + ": not measured at " + since + " on its machine\n";
  out += std::to_string(over) + " of " + std::to_string(drifts.size()) + " series drifted more than " +
         fmt("%g%%", budget * 100) + " since " + since + "\n";
  return out;
}

}  // namespace gate::history
