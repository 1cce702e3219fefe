// Which executions a result's Go benchmark figures came from (issue 39): clean ones (no probe
// attached) since gate measures benchmarks without probes; probed ones in results of before.
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"

namespace gate::gobench {

// One line for the reports, e.g. "benchmark figures from 40 clean executions (no probe attached);
// function figures from 40 probed ones"; "" when no run holds benchmark figures.
std::string benchmark_source(const std::vector<RunResult>& runs);

}  // namespace gate::gobench
