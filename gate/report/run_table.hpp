// The table `gate run` prints: one line per function of a result (no comparison), with the
// quantiles of all its runs pooled and where its entry probe sits.
#pragma once

#include <map>
#include <string>

#include "results/result.hpp"

namespace gate::report {

// Header line, then one line per function; a not-measurable function says why. When the runs were
// sampled, two more columns: cpu/call (sampled, less declared callees) and the probe share, and
// the instrument `measure:` gives it (function -> "auto", "probes" or "samples"; absent: auto) as
// the verdict would choose it from the first run.
std::string render_run_table(const ResultFile& r, const std::map<std::string, std::string>& measure = {});

}  // namespace gate::report
