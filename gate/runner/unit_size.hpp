// How many executions of the workload make one measured unit (docs/units-and-layouts.md): a unit
// should last at least min_unit_seconds, so that it averages several of the machine's speed swings
// (0.1-1 s on the machines measured) instead of landing in one. Pure: no root.
#pragma once

#include <optional>
#include <string>

#include "results/result.hpp"

namespace gate::runner {

struct Config;

// At most this many executions a unit: past it, a unit costs more than it decides (a 15 ms
// workload at the 1 s default would otherwise run 67 times per side and unit).
inline constexpr int kMaxExecutionsPerUnit = 64;

// ceil(min_unit_seconds / execution_seconds), from 1 to max_executions: 1 when min_unit_seconds
// is 0 or the execution already lasts that long, max_executions when its duration is unknown (0)
// or below min_unit_seconds / max_executions.
int executions_per_unit(double min_unit_seconds, double execution_seconds,
                        int max_executions = kMaxExecutionsPerUnit);

// Which command measures: the unit length each uses when the config does not set it.
enum class UnitCommand { kRun, kAb, kCalibrate };
// The config's min_unit_seconds, else runner::kDefaultMinUnitSeconds for ab and calibrate and 0
// (one execution a unit) for run and record.
double min_unit_seconds(const runner::Config& cfg, UnitCommand command);

// gate check: the executions per unit the baseline was recorded with (the median of its runs'
// `executions`; 1 for a result from before units), so that both sides' units are alike.
int baseline_executions_per_unit(const ResultFile& base);
// One execution's (a service's round's) mean duration over a measured side's units, in seconds;
// none when it has no run. What gate calibrate's advice sizes units from (unit_advice, round_advice).
std::optional<double> seconds_per_execution(const ResultFile& measured);

// One line for logs and calibrate: "4 executions per unit (one execution: 0.28 s, unit target
// 1.0 s)", or "one execution per unit (...)".
std::string describe_units(int executions, double execution_seconds, double min_unit_seconds);

// gate calibrate's advice from a measured side: the executions per unit it used, one execution's
// duration (the runs' durations over their executions), and what to change when the unit is
// capped (a very short workload) or one execution is already past the target.
std::string unit_advice(const ResultFile& measured, double min_unit_seconds);

}  // namespace gate::runner
