// The table `gate run` prints: one line per function of a result (no comparison), with the
// quantiles of all its runs pooled and where its entry probe sits.
#pragma once

#include <string>

#include "results/result.hpp"

namespace gate::report {

// Header line, then one line per function; a not-measurable function says why.
std::string render_run_table(const ResultFile& r);

}  // namespace gate::report
