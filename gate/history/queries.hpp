// What the history commands ask of the store, as values: every function's series with its change
// points, the commit a --since REF pins, the drift budget over every series, and the change point a
// bisect starts from; and their JSON documents. The CLI parses flags and prints what these return.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/render.hpp"
#include "history/series.hpp"
#include "history/store.hpp"
#include "history/trend.hpp"

namespace gate::history {

Machines machines_of(Store& s);

// Every series of every function (or of the ones named, each of which must be in the history),
// with its change points. Throws gate::Error naming a function the history does not hold.
std::vector<TrendFunction> trends(const LoadedRuns& runs, const std::vector<std::string>& only,
                                  const std::vector<std::string>& quantiles, const ChangePointParams& p);

// REF as the history stores it: a stored commit it abbreviates, else what git resolves it to in
// the repository at `repo` (a tag or branch). Throws gate::Error when neither holds.
std::string pinned_commit(Store& store, const std::string& ref, const std::string& repo = ".");

// The drift budget over every series of the given quantiles, since the commit REF pins.
struct DriftCheck {
  std::string since;  // the pinned commit, as stored
  double budget = 0;
  std::vector<Drift> drifts;
  std::vector<std::string> not_pinned;  // "function quantile" series without a point at `since`
  bool over = false;                    // some drift is over the budget
};
// Throws gate::Error when no series has a point at the pinned commit.
DriftCheck check_drift(Store& store, const LoadedRuns& runs, const std::string& ref, double budget,
                       const std::vector<std::string>& quantiles);

// The latest change point of FUNCTION's p50 (over every machine): where a bisect starts. Throws
// gate::Error when the function is not in the history or its p50 shows no change point.
Change latest_change(const LoadedRuns& runs, const std::string& function);

// The JSON documents of the history commands (schema gate.history.*, version 1).
nlohmann::json speed_json(const LoadedRuns& r);
nlohmann::json drift_document(const DriftCheck& d, const LoadedRuns& runs);
nlohmann::json show_document(const TrendFunction& t, const ChangePointParams& p, const LoadedRuns& runs,
                             const Machines& machines);
nlohmann::json changes_document(const std::vector<Change>& changes, size_t series, const ChangePointParams& p,
                                const LoadedRuns& runs, const Machines& machines);

}  // namespace gate::history
