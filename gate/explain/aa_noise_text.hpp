// The text gate calibrate prints: per function the A/A noise per pair, how much of it is the calls'
// sampling, when in the run the calls were made, the smallest slowdown caught at runs and at
// max_runs, the pairs a slowdown needs; what would help the functions short of it; the units and
// the suggested runs. The figures come from stats/aa_noise.hpp; only the words are here.
#pragma once

#include <string>

#include "stats/aa_noise.hpp"
#include "stats/compare.hpp"

namespace gate::explain {

// What the printout says besides the calibration's rows: the config's runs and max_runs, the A/A's
// pairs, and the units' line as runner/ words it (runner::unit_advice, runner::round_advice).
struct CalibrationSetting {
  int runs = 0, max_runs = 0, pairs = 0;
  std::string units;
};

std::string calibration_text(const stats::Comparison& c, const stats::Calibration& cal, const CalibrationSetting& s);

}  // namespace gate::explain
