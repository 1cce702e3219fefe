// The flags of every command that measures (run, record, check, ab): what is measured and how,
// and the runner's MeasureOptions they make; each declared with its reproduce rule (flags.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "runner/measure.hpp"

namespace gate::cli {

struct Globals;

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
  std::string run_as;        // the config's run_as: the user the workload and build run as
};
void add_measure_flags(CLI::App& app, MeasureFlags& f);
// The flags that replace a config's keys (--run-as), applied to it; and the config of -c with them.
void apply_run_as(const MeasureFlags& f, runner::Config& cfg);
runner::Config load_measured_config(const MeasureFlags& f);
// MeasureOptions from the flags, logging through g.
runner::MeasureOptions measure_options(const MeasureFlags& f, const Globals& g);

}  // namespace gate::cli
