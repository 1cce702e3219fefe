// Series per (function, quantile, machine), their change points and the drift budget.
#include "history/series.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "stats/speed.hpp"

namespace gate::history {
namespace {

double value_of(const StoredRun& r, const std::string& q) {
  if (q == "p90") return r.p90_ns;
  if (q == "p99") return r.p99_ns;
  return r.p50_ns;
}

}  // namespace

bool commit_matches(const std::string& stored, const std::string& given) {
  if (given.empty()) return false;
  if (stored == given) return true;
  return given.size() >= 4 && (stored.rfind(given, 0) == 0 || given.rfind(stored, 0) == 0);
}

std::vector<Series> build_series(const std::string& function, const std::vector<StoredRun>& runs,
                                 const std::vector<std::string>& quantiles) {
  std::vector<Series> out;
  std::vector<std::string> machines;
  for (const auto& r : runs)
    if (std::find(machines.begin(), machines.end(), r.machine) == machines.end()) machines.push_back(r.machine);
  for (const auto& m : machines) {
    for (const auto& q : quantiles) {
      Series s{function, q, m, {}};
      // Runs come ordered by commit time and ingest order; a commit measured twice keeps the place
      // of its first result.
      std::vector<std::string> order;
      std::map<std::string, std::vector<const StoredRun*>> by_commit;
      for (const auto& r : runs) {
        if (r.machine != m || r.calls == 0 || !std::isfinite(value_of(r, q))) continue;
        if (!by_commit.count(r.commit)) order.push_back(r.commit);
        by_commit[r.commit].push_back(&r);
      }
      for (const auto& c : order) {
        const auto& rs = by_commit[c];
        std::vector<double> v, calls;
        for (const auto* r : rs) {
          v.push_back(value_of(*r, q));
          calls.push_back(static_cast<double>(r->calls));
        }
        Point p;
        p.commit = c;
        p.time = rs.front()->time;
        p.value = median_of(v, 0, v.size());
        p.lo = *std::min_element(v.begin(), v.end());
        p.hi = *std::max_element(v.begin(), v.end());
        p.runs = static_cast<int>(v.size());
        p.calls = median_of(calls, 0, calls.size());
        s.points.push_back(std::move(p));
      }
      if (!s.points.empty()) out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<std::string> normalize_speed(std::map<std::string, std::vector<StoredRun>>& runs_by_function) {
  std::vector<std::string> raw;
  std::vector<std::string> fns;
  std::map<std::string, std::vector<std::pair<std::string, int>>> runs_of_machine;  // (key, run) in order
  std::map<std::pair<std::string, int>, std::map<std::string, StoredRun*>> cells;   // run -> function -> row
  for (auto& [f, runs] : runs_by_function) {
    fns.push_back(f);
    for (auto& r : runs) {
      const auto id = std::make_pair(r.key, r.run);
      if (!cells.count(id)) runs_of_machine[r.machine].push_back(id);
      cells[id][f] = &r;
    }
  }
  for (const auto& [machine, ids] : runs_of_machine) {
    // estimate_speed compares two sides; here every run is one sample of the machine, dealt to the
    // sides alternately (the reference is the median over both, so the split changes nothing).
    std::vector<std::vector<double>> values[2];
    for (size_t i = 0; i < ids.size(); ++i) {
      std::vector<double> row(fns.size(), NAN);
      for (size_t f = 0; f < fns.size(); ++f) {
        const auto it = cells[ids[i]].find(fns[f]);
        if (it != cells[ids[i]].end() && it->second->calls > 0 && it->second->p50_ns > 0)
          row[f] = std::log(it->second->p50_ns);
      }
      values[i % 2].push_back(std::move(row));
    }
    const stats::SpeedFactors sf = stats::estimate_speed(values);
    if (!sf.usable) {
      raw.push_back(machine);
      continue;
    }
    for (size_t i = 0; i < ids.size(); ++i)
      for (size_t f = 0; f < fns.size(); ++f) {
        const auto it = cells[ids[i]].find(fns[f]);
        if (it == cells[ids[i]].end()) continue;
        const double k = std::exp(-sf.leave_out(static_cast<int>(i % 2), i / 2, f));
        it->second->p50_ns *= k;
        it->second->p90_ns *= k;
        it->second->p99_ns *= k;
      }
  }
  return raw;
}

LoadedRuns load_runs(Store& store, bool raw) {
  LoadedRuns out;
  for (const auto& f : store.functions()) out.by_function[f] = store.runs_of(f);
  if (!raw) {
    out.raw_machines = normalize_speed(out.by_function);
    out.normalized = true;
  }
  return out;
}

std::vector<Change> changes_in(const Series& s, const ChangePointParams& p) {
  std::vector<double> v;
  for (const auto& pt : s.points) v.push_back(pt.value);
  std::vector<Change> out;
  for (const auto& cp : e_divisive(v, p))
    out.push_back({s.function, s.quantile, s.machine, s.points[cp.index].commit, s.points[cp.index - 1].commit, cp});
  return out;
}

bool drift_of(const Series& s, const std::string& since, double budget, Drift& out) {
  const Point* pinned = nullptr;
  int commits = 0;
  for (const auto& p : s.points) {
    if (!pinned && commit_matches(p.commit, since)) pinned = &p;
    if (pinned) ++commits;
  }
  if (!pinned) return false;
  const Point& latest = s.points.back();
  out = {s.function, s.quantile, s.machine, pinned->commit, latest.commit, pinned->value, latest.value,
         latest.value / pinned->value, false, commits};
  out.over = out.ratio > 1 + budget;
  return true;
}

}  // namespace gate::history
