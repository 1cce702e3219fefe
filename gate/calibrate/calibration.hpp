// gate calibrate as one call: the A/A (verdict::ab of one binary against itself, a fixed number of
// pairs) and its figures: every tested function's calibration (stats/aa_noise), sized for the
// config's runs and max_runs, and the units' line as runner/ words it (a command's executions, a
// service's rounds). The printout is explain::calibration_text's; profiles, when asked, the CLI's.
#pragma once

#include "explain/aa_noise_text.hpp"
#include "runner/config.hpp"
#include "runner/measure.hpp"
#include "stats/aa_noise.hpp"
#include "verdict/judge.hpp"

namespace gate::calibrate {

struct CalibrationFigures {
  stats::Calibration calibration;
  explain::CalibrationSetting setting;
};

// `slowdown` as a fraction (0: twice each test's threshold); `pairs`: the A/A's (stats::aa_pairs).
CalibrationFigures calibration_figures(const verdict::AbJudged& j, const runner::Config& cfg, const stats::CompareOptions& o,
                                       double slowdown, int pairs);

// The A/A and its figures. pairs: the A/A's (stats::aa_pairs: --runs, else the config's, at least
// 10); mo.runs is set to them. Throws the first failed run's error (exit 3).
struct Calibrated {
  verdict::AbJudged aa;
  CalibrationFigures figures;
};
Calibrated run_calibration(const runner::Config& cfg, runner::MeasureOptions mo, int pairs, uint64_t seed,
                           double slowdown, runner::SignalWatch* signals);

}  // namespace gate::calibrate
