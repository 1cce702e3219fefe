// The exit code of a comparing command, decided here once the verdicts are final: the statistics
// return values (regressed, suspected, measured_too_little), the verdict turns them into 0, 1 or 3.
#pragma once

#include "common/error.hpp"
#include "stats/compare.hpp"

namespace gate::verdict {

// 1 on a regression (or a suspect, with fail_on_suspect); else 3 when the comparison measured too
// little (a side recorded no calls, or data was missing with require_sufficient_data); else 0.
ExitCode exit_code(const stats::Comparison& c, bool fail_on_suspect);

}  // namespace gate::verdict
