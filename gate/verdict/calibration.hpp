// gate calibrate's figures from its A/A (ab() of one binary against itself): every tested
// function's calibration (stats/aa_noise), sized for the config's runs and max_runs, and the
// units' line as runner/ words it (a command's executions, a service's rounds). The printout is
// explain::calibration_text's.
#pragma once

#include "explain/aa_noise_text.hpp"
#include "runner/config.hpp"
#include "stats/aa_noise.hpp"
#include "verdict/judge.hpp"

namespace gate::verdict {

struct CalibrationFigures {
  stats::Calibration calibration;
  explain::CalibrationSetting setting;
};

// `slowdown` as a fraction (0: twice each test's threshold); `pairs`: the A/A's (stats::aa_pairs).
CalibrationFigures calibration_figures(const AbJudged& j, const runner::Config& cfg, const stats::CompareOptions& o,
                                       double slowdown, int pairs);

}  // namespace gate::verdict
