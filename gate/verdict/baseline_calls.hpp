// gate record's refusal of a baseline that holds a declared function no run called: a baseline
// without calls of a function cannot guard it. Here, not in runner/, because its message words the
// functions' inlining status (explain/).
#pragma once

#include <string>

#include "results/result.hpp"
#include "runner/config.hpp"

namespace gate::verdict {

// Throws gate::Error (exit 3) naming every uncalled function the config does not mark optional
// (runner::is_optional), with its inlining status and the fix.
void require_calls_for_baseline(const ResultFile& r, const runner::Config& cfg, const std::string& baseline_path);

}  // namespace gate::verdict
