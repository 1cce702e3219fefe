// The progress lines of measure-until-decided (verdict/until_decided), from its counts: what a
// round is, why one more is measured, units planned again.
#pragma once

#include <string>
#include <vector>

namespace gate::explain {

// What one round of a schedule is: "run" or "unit (4 executions)" for one side; "pair of runs" or
// "pair of units (4 executions per side)" for two, interleaved.
std::string round_name(bool paired, int executions_per_unit);
// A round of gate ab's time-sliced pairs (runner/sliced).
std::string time_slices_round_name();
// "units planned again from the next executions: UNITS[, sized by samples]" (UNITS: runner's
// describe_units).
std::string units_replanned(const std::string& units, bool sized_by_samples);
// Why one more round is measured before max_runs.
std::string still_inconclusive();
// Why one more round is measured past max_runs: TESTS (the first named, the rest counted) read past
// their threshold and look decidable by LAST.
std::string past_max_runs(int max_runs, const std::vector<std::string>& tests, int last);
// "WHY: one more ROUND (NEXT/OF)".
std::string one_more_round(const std::string& why, const std::string& round, int next, int of);

}  // namespace gate::explain
