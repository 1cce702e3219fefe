// From stored runs to series: one point per commit (the median of its runs' quantile), one series
// per (function, quantile, machine); the change points found in each; and the drift budget (the
// total change since a pinned commit). Pure: works on rows the store read.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "history/changepoints.hpp"
#include "history/store.hpp"

namespace gate::history {

inline const std::vector<std::string> kQuantiles = {"p50", "p90", "p99"};

struct Point {
  std::string commit, time;
  double value = 0;       // median over the commit's runs (all its results on this machine)
  double lo = 0, hi = 0;  // smallest and largest run: the run-to-run spread at this commit
  int runs = 0;
  double calls = 0;       // median calls per run
};

struct Series {
  std::string function, quantile, machine;
  std::vector<Point> points;  // in commit order (commit time, then ingest order)
};

// Series of one function for the given quantiles ("p50", "p90", "p99"), one per machine, in the
// order machines first appear. Runs without calls are left out.
std::vector<Series> build_series(const std::string& function, const std::vector<StoredRun>& runs,
                                 const std::vector<std::string>& quantiles);

// The machine's speed taken out of every run, as gate ab does (stats/speed.hpp): per machine, each
// run's quantiles of a function divided by the speed of that run's other functions (the median of
// their p50s against their own medians on that machine). On a shared runner most run-to-run
// noise is common to all functions; a change to a few functions still shows, but one that slows
// more than half of them alike is taken out too (see it with --raw). Needs >= 5 functions with
// calls in every run; machines with fewer are left raw and returned.
std::vector<std::string> normalize_speed(std::map<std::string, std::vector<StoredRun>>& runs_by_function);

// Every function's runs from the store, speed-normalized unless raw (then raw_machines lists the
// machines that could not be, e.g. with fewer than 5 functions).
struct LoadedRuns {
  std::map<std::string, std::vector<StoredRun>> by_function;
  bool normalized = false;
  std::vector<std::string> raw_machines;
};
LoadedRuns load_runs(Store& store, bool raw);

struct Change {
  std::string function, quantile, machine;
  std::string commit;         // the first commit after the change
  std::string before_commit;  // the last commit before it
  ChangePoint point;
};
std::vector<Change> changes_in(const Series& s, const ChangePointParams& p);

// The drift budget: per series, the latest commit against the pinned one.
struct Drift {
  std::string function, quantile, machine;
  std::string since_commit, latest_commit;
  double since_value = 0, latest_value = 0;
  double ratio = 1;     // latest / since
  bool over = false;    // ratio > 1 + budget
  int commits = 0;      // points from the pinned commit to the latest, both counted
};
// nullopt-like: found=false when the series has no point at a commit starting with `since`.
bool drift_of(const Series& s, const std::string& since, double budget, Drift& out);

// Whether a stored commit matches what the user typed (a full SHA, or a prefix of 4+ characters).
bool commit_matches(const std::string& stored, const std::string& given);

}  // namespace gate::history
