#include "history/queries.hpp"

#include "baselines/git_ref.hpp"
#include "common/error.hpp"

namespace gate::history {

Machines machines_of(Store& s) {
  Machines m;
  for (auto& x : s.machines()) m[x.id] = x;
  return m;
}

std::vector<TrendFunction> trends(const LoadedRuns& runs, const std::vector<std::string>& only,
                                  const std::vector<std::string>& quantiles, const ChangePointParams& p) {
  std::vector<TrendFunction> out;
  std::vector<std::string> all;
  for (const auto& [f, _] : runs.by_function) all.push_back(f);
  for (const auto& f : only)
    if (!runs.by_function.count(f))
      throw Error::make("function " + f, "is not in the history", "see the stored names with gate history changes");
  for (const auto& f : only.empty() ? all : only) {
    TrendFunction t{f, build_series(f, runs.by_function.at(f), quantiles), {}};
    for (const auto& s : t.series)
      for (auto& c : changes_in(s, p)) t.changes.push_back(std::move(c));
    out.push_back(std::move(t));
  }
  return out;
}

std::string pinned_commit(Store& store, const std::string& ref, const std::string& repo) {
  const auto stored = store.db().query("SELECT DISTINCT commit_sha FROM gate_results");
  for (auto& r : stored)
    if (commit_matches(r[0], ref)) return r[0];
  const auto git = baselines::run_git({"rev-parse", "--verify", "--quiet", ref + "^{commit}"}, repo);
  const std::string sha = git.out.substr(0, git.out.find('\n'));
  if (git.status == 0 && !sha.empty()) {
    for (auto& r : stored)
      if (commit_matches(r[0], sha)) return r[0];
    throw Error::make("--since " + ref, "names commit " + sha + ", which the history has no result of",
                      "pin a commit that was measured (see gate history show FUNCTION), or add its result first");
  }
  throw Error::make("--since " + ref, "is neither a commit in the history nor a git ref here",
                    "give a stored commit's SHA (gate history show FUNCTION lists them) or a tag of this repository");
}

DriftCheck check_drift(Store& store, const LoadedRuns& runs, const std::string& ref, double budget,
                       const std::vector<std::string>& quantiles) {
  DriftCheck out;
  out.budget = budget;
  out.since = pinned_commit(store, ref);
  for (const auto& [f, rs] : runs.by_function)
    for (const auto& s : build_series(f, rs, quantiles)) {
      Drift d;
      if (drift_of(s, out.since, budget, d))
        out.drifts.push_back(d);
      else
        out.not_pinned.push_back(f + " " + s.quantile);
    }
  if (out.drifts.empty())
    throw Error::make("--since " + ref, "no series has a result at commit " + out.since,
                      "pin a commit measured on the same machine as the latest results");
  for (const auto& d : out.drifts) out.over |= d.over;
  return out;
}

Change latest_change(const LoadedRuns& runs, const std::string& function) {
  const auto it = runs.by_function.find(function);
  if (it == runs.by_function.end())
    throw Error::make("--from-change " + function, "is not in the history",
                      "give a function's full name as gate history changes prints it");
  std::optional<Change> last;
  for (const auto& s : build_series(function, it->second, {"p50"}))
    for (auto& c : changes_in(s, {}))
      if (!last || c.point.index > last->point.index) last = c;
  if (!last)
    throw Error::make("--from-change " + function, "the history shows no change point of its p50",
                      "see gate history show '" + function + "', or give GOOD and BAD");
  return *last;
}

nlohmann::json speed_json(const LoadedRuns& r) {
  return {{"speed_normalized", r.normalized}, {"machines_left_raw", r.raw_machines}};
}

nlohmann::json drift_document(const DriftCheck& c, const LoadedRuns& runs) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& d : c.drifts)
    j.push_back({{"function", d.function}, {"quantile", d.quantile}, {"machine", d.machine},
                 {"since_commit", d.since_commit}, {"latest_commit", d.latest_commit}, {"since_ns", d.since_value},
                 {"latest_ns", d.latest_value}, {"ratio", d.ratio}, {"commits", d.commits}, {"over_budget", d.over}});
  return {{"schema", "gate.history.drift"}, {"version", 1}, {"since", c.since}, {"budget", c.budget},
          {"over_budget", c.over}, {"drifts", j}, {"speed", speed_json(runs)}, {"not_measured_at_since", c.not_pinned}};
}

nlohmann::json show_document(const TrendFunction& t, const ChangePointParams& p, const LoadedRuns& runs,
                             const Machines& machines) {
  nlohmann::json s = nlohmann::json::array(), c = nlohmann::json::array();
  for (const auto& x : t.series) s.push_back(series_json(x));
  for (const auto& x : t.changes) c.push_back(change_json(x));
  return {{"schema", "gate.history.show"}, {"version", 1}, {"function", t.function},
          {"parameters", params_json(p)}, {"speed", speed_json(runs)}, {"machines", machines_json(machines)},
          {"series", s}, {"changes", c}};
}

nlohmann::json changes_document(const std::vector<Change>& changes, size_t series, const ChangePointParams& p,
                                const LoadedRuns& runs, const Machines& machines) {
  nlohmann::json c = nlohmann::json::array();
  for (const auto& x : changes) c.push_back(change_json(x));
  return {{"schema", "gate.history.changes"}, {"version", 1}, {"parameters", params_json(p)},
          {"speed", speed_json(runs)}, {"machines", machines_json(machines)}, {"series", series}, {"changes", c}};
}

}  // namespace gate::history
