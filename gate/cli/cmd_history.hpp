// gate history's subcommands, one a file (cmd_history_add.cpp, _show, _changes, _check, _trend),
// and what they share: the flags several take, their checks, and the history opened for reading.
// The work is gate/history; these files parse flags and print.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "history/queries.hpp"

namespace gate::cli {

// --db (env GATE_HISTORY_DB), --raw, --format text|json and --quantile p50,p99 of a subcommand.
void add_db_flag(CLI::App& app, std::string& db);
void add_raw_flag(CLI::App& app, bool& raw);
void add_format_flag(CLI::App& app, std::string& format);
void add_quantile_flag(CLI::App& app, std::vector<std::string>& quantiles, const std::string& help);

// The change-point flags (--alpha, --min-segment, --min-shift, --permutations, --seed) of show,
// changes and trend.
struct ChangeFlags {
  history::ChangePointParams p;
  void add(CLI::App& app);
  void validate() const;  // throws gate::Error (exit 2)
};

// Each throws gate::Error (exit 2) naming its flag: a --format other than text or json; a --quantile
// the history does not keep.
void check_format(const std::string& format);
void check_quantiles(const std::vector<std::string>& quantiles);
// "10%" or "0.1" -> 0.1 (gate::parse_fraction), with this flag's error.
double share_flag(const std::string& text, const std::string& flag);

// The history as show, changes, check and trend read it: its machines, every function's runs
// (speed-normalized unless raw) and the note saying which.
struct OpenHistory {
  history::Store store;
  history::Machines machines;
  history::LoadedRuns runs;
  std::string speed_note;
};
OpenHistory open_history(const std::string& db, bool raw);

// Each subcommand's flags on its app (gate history's subcommand of that name), and what it runs when
// parsed.
std::function<int()> add_history_add(CLI::App& app, const Globals& g);
std::function<int()> add_history_show(CLI::App& app);
std::function<int()> add_history_changes(CLI::App& app);
std::function<int()> add_history_check(CLI::App& app);
std::function<int()> add_history_trend(CLI::App& app, const Globals& g);

}  // namespace gate::cli
