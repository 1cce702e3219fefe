// The gate subcommands: each registers its options on a CLI11 app and returns its exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "runner/measure.hpp"

namespace gate::cli {

// Options every command shares.
struct Globals {
  bool quiet = false;    // no progress lines
  bool verbose = false;  // more detail
  // Progress / log line to stderr unless quiet.
  void log(const std::string& line) const;
};

// Flags of every command that measures (run, record, check, ab).
struct MeasureFlags {
  std::string config;
  int runs = 0;
  std::string keep_output;
  std::string attach_mode = "auto";
  bool no_build = false;
  bool true_time = false;    // subtract the calibrated probe costs (opt-in)
  bool raw_times = false;    // no per-goroutine accounting (no self time, call graph)
  bool exclude_preemption = false;     // time calls minus other processes' preemption
  bool no_exclude_preemption = false;  // wall time, whatever the config says
  // The two flags above as one choice: unset when neither was given.
  std::optional<bool> preemption_choice() const {
    if (exclude_preemption) return true;
    if (no_exclude_preemption) return false;
    return std::nullopt;
  }
  bool recalibrate = false;  // measure the probe costs again even when cached
};
void add_measure_flags(CLI::App& app, MeasureFlags& f);
// MeasureOptions from the flags, logging through g.
runner::MeasureOptions measure_options(const MeasureFlags& f, const Globals& g);

// Each returns a callback to run after parsing.
std::function<int()> add_run(CLI::App& app, const Globals& g);
std::function<int()> add_functions(CLI::App& app, const Globals& g);
// gate functions --native / --library (cmd_functions_native.cpp).
int print_native_functions(const std::string& binary, const std::string& library,
                           const std::vector<std::string>& match, bool json, const std::string& native_returns);
std::function<int()> add_record(CLI::App& app, const Globals& g);
std::function<int()> add_check(CLI::App& app, const Globals& g);
std::function<int()> add_compare(CLI::App& app, const Globals& g);
std::function<int()> add_ab(CLI::App& app, const Globals& g);
std::function<int()> add_merge(CLI::App& app, const Globals& g);  // cmd_merge.cpp
std::function<int()> add_calibrate(CLI::App& app, const Globals& g);
std::function<int()> add_history(CLI::App& app, const Globals& g);
std::function<int()> add_bisect(CLI::App& app, const Globals& g);
std::function<int()> add_doctor(CLI::App& app, const Globals& g);

}  // namespace gate::cli
