// The text gate calibrate prints: per function the A/A noise per pair, how much of it is the calls'
// sampling, when in the run the calls were made, the smallest slowdown caught at runs and at
// max_runs, the pairs a slowdown needs; what would help the functions short of it; the units and
// the suggested runs. The figures come from aa_noise.hpp; only the words are here.
#pragma once

#include <string>

#include "runner/config.hpp"
#include "stats/compare.hpp"
#include "verdict/judge.hpp"

namespace gate::verdict {

std::string calibration_text(const stats::Comparison& c, const runner::Config& cfg, const stats::CompareOptions& o,
                             double slowdown, int pairs, const AbJudged& j);

}  // namespace gate::verdict
