// The sentences of what a measurement notes about itself (results/run_notes.hpp): a declared
// function no run called, a service round off in calls, the notes of a sliced measurement. runner/
// returns the values; a report's warnings, gate run's and gate record's stderr and the Measurer's
// log word them here. May include: results, common.
#pragma once

#include <string>
#include <vector>

#include "results/run_notes.hpp"

namespace gate::explain {

// "no inlined copies found" / "also inlined at 2 sites (main.a; main.b): calls there are not timed".
std::string inlining_status(const UncalledFunction& f);

// "NAME: no calls in any of the 5 runs of head; STATUS" ("the 1 run"; no " of SIDE" without a side).
std::string uncalled(const UncalledFunction& f);

// "unit 2, round 3 of 5 (base) timed 40 calls of the declared functions, the unit's other rounds
// 100 (median): -60%, past calls_change (50%); ..." (a file's recorded line as it was written).
std::string round_calls(const RoundCalls& r);
// The same as a report's warning: "calls per round (head): " and the line.
std::string round_calls_warning(const RoundCalls& r);

// "head: the cgroup's CPU quota held the workload back in 3 of 10 runs (12% of their enforcement
// periods, up to 31% in one run; 2.4 s held): ..." with what it does to wall time and the fix.
std::string throttled(const ThrottledRuns& t);

// "base: the workload, its build and its load driver ran as root (...): ..." with the fix.
std::string root_workload(const RootWorkload& r);

// A sliced side's notes: one per function whose calls are long for the slice, then the calls that
// straddled a switch (when any).
std::vector<std::string> slice_notes(const SliceNotes& s);

}  // namespace gate::explain
