// What the history commands print: series, change points and drift as text for people and as JSON
// (schema "gate.history.*") for programs. The figures come from series.hpp; only the words are here.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "history/series.hpp"
#include "history/store.hpp"

namespace gate::history {

using Machines = std::map<std::string, Machine>;  // by fingerprint

nlohmann::json series_json(const Series& s);
nlohmann::json change_json(const Change& c);
nlohmann::json params_json(const ChangePointParams& p);
nlohmann::json machines_json(const Machines& m);

std::string show_text(const std::string& function, const std::vector<Series>& series,
                      const std::vector<Change>& changes, const Machines& machines);
std::string changes_text(const std::vector<Change>& changes, const Machines& machines, size_t series_count);
std::string drift_text(const std::vector<Drift>& drifts, const std::vector<std::string>& not_pinned, double budget,
                       const std::string& since);

std::string short_commit(const std::string& sha);  // 12 characters at most
std::string fmt_ns(double ns);                     // "1.23 ms", "850 ns"

}  // namespace gate::history
