// The unit planner: executions per unit from one execution's duration, and the defaults per command.
#include "runner/unit_size.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/numbers.hpp"
#include "runner/config.hpp"

namespace gate::runner {

int executions_per_unit(double min_unit_seconds, double execution_seconds, int max_executions) {
  max_executions = std::max(max_executions, 1);
  if (!(min_unit_seconds > 0)) return 1;
  if (!(execution_seconds > 0)) return max_executions;
  const double k = std::ceil(min_unit_seconds / execution_seconds - 1e-9);
  return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(max_executions)));
}

double min_unit_seconds(const runner::Config& cfg, UnitCommand command) {
  if (cfg.min_unit_seconds) return *cfg.min_unit_seconds;
  return command == UnitCommand::kRun ? 0.0 : runner::kDefaultMinUnitSeconds;
}

int baseline_executions_per_unit(const ResultFile& base) {
  std::vector<int> k;
  for (const auto& r : base.runs) k.push_back(std::max(r.executions, 1));
  return k.empty() ? 1 : upper_median(k);
}

std::string describe_units(int executions, double execution_seconds, double min_unit_seconds) {
  char b[200];
  if (executions <= 1)
    snprintf(b, sizeof b, "one execution per unit (one execution: %.2f s, unit target %.1f s)", execution_seconds,
             min_unit_seconds);
  else
    snprintf(b, sizeof b, "%d executions per unit (one execution: %.2f s, unit target %.1f s%s)", executions,
             execution_seconds, min_unit_seconds, executions >= kMaxExecutionsPerUnit ? ", capped" : "");
  return b;
}

std::optional<double> seconds_per_execution(const ResultFile& measured) {
  double seconds = 0;
  int executions = 0;
  for (const auto& r : measured.runs) {
    seconds += r.duration_s;
    executions += std::max(r.executions, 1);
  }
  if (executions == 0) return std::nullopt;
  return seconds / executions;
}

std::string unit_advice(const ResultFile& measured, double min_unit_seconds) {
  const auto per_execution = seconds_per_execution(measured);
  if (!per_execution) return "no run measured";
  const double one = *per_execution;
  const int k = baseline_executions_per_unit(measured);
  std::string out = describe_units(k, one, min_unit_seconds);
  if (!(min_unit_seconds > 0))
    out += "; min_unit_seconds: 0 makes every execution a unit: units shorter than ~1 s land in one of the "
           "machine's speed swings, so more of them are needed";
  else if (k >= kMaxExecutionsPerUnit)
    out += "; capped at " + std::to_string(kMaxExecutionsPerUnit) +
           " executions: a longer workload per execution would reach the target with less start-up overhead";
  else if (k == 1)
    out += "; one execution already lasts the target: each run is one unit";
  else
    out += "; both sides alternate execution by execution inside a unit pair";
  return out;
}

}  // namespace gate::runner
