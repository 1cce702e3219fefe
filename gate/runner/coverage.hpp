// Which declared functions a measurement reached. A run that timed no call of any of them measured
// nothing and is a failed run; a function never called in any run is named, with its inlining status.
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"
#include "runner/config.hpp"

namespace gate::runner {

// Throws gate::Error (exit 3) when `run` timed no call of any measurable function in `fns`, naming
// the likely causes and the fix. `label` names the run ("run 2 (head)"); `service` adds the cause
// only a service has (the load reached another process).
void require_some_call(const RunResult& run, const std::vector<FunctionInfo>& fns, const std::string& label,
                       bool service);

// The measurable functions of `r` with no call in any of its runs (none when it has no runs).
std::vector<const FunctionInfo*> uncalled_functions(const ResultFile& r);

// "no inlined copies found" / "also inlined at 2 sites (main.a, main.b): calls there are not timed".
std::string inlining_status(const FunctionInfo& f);

// One warning per uncalled function: "NAME: no calls in any of the 5 runs of head; STATUS".
// `side` names the measurement ("" for run/record, "base" or "head" in reports).
std::vector<std::string> uncalled_warnings(const ResultFile& r, const std::string& side = "");

// True when the config's function entry that declared `name` (exact name or glob) says optional: true.
bool is_optional(const Config& cfg, const std::string& name);

// For gate record: throws gate::Error (exit 3) naming every uncalled function the config does not
// mark optional, because a baseline without calls of a declared function cannot guard it.
void require_calls_for_baseline(const ResultFile& r, const Config& cfg, const std::string& baseline_path);

}  // namespace gate::runner
