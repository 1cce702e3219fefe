// Which declared functions a measurement reached. A run that timed no call of any of them measured
// nothing and is a failed run; a function never called in any run is a note (a value: its name and
// inlining facts, worded by explain/), and a baseline refuses it (verdict/baseline_calls.*).
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"
#include "results/run_notes.hpp"
#include "runner/config.hpp"

namespace gate::runner {

// Throws gate::Error (exit 3) when `run` timed no call of any measurable function in `fns`, naming
// the likely causes and the fix. `label` names the run ("run 2 (head)"); `service` adds the cause
// only a service has (the load reached another process).
void require_some_call(const RunResult& run, const std::vector<FunctionInfo>& fns, const std::string& label,
                       bool service);

// The measurable functions of `r` with no call in any of its runs (none when it has no runs), with
// their inlining facts; explain::uncalled words each. `side` names the measurement ("" for
// run/record, "base" or "head" in reports).
std::vector<UncalledFunction> uncalled_functions(const ResultFile& r, const std::string& side = "");

// True when the config's function entry that declared `name` (exact name or glob) says optional: true.
bool is_optional(const Config& cfg, const std::string& name);

}  // namespace gate::runner
