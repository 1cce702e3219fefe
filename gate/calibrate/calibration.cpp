// gate calibrate's A/A and figures (calibrate/calibration.hpp).
#include "calibrate/calibration.hpp"

#include <algorithm>

#include "runner/rounds.hpp"
#include "runner/unit_size.hpp"
#include "verdict/config_options.hpp"

namespace gate::calibrate {

CalibrationFigures calibration_figures(const verdict::AbJudged& j, const runner::Config& cfg, const stats::CompareOptions& o,
                                       double slowdown, int pairs) {
  CalibrationFigures f;
  f.setting.runs = cfg.runs;
  f.setting.max_runs = std::max(cfg.runs, cfg.max_runs);
  f.setting.pairs = pairs;
  f.calibration = stats::calibrate(j.comparison, f.setting.runs, f.setting.max_runs, slowdown, o.confidence,
                                   &j.base.result.runs, &j.head.result.runs);
  const double unit_s = runner::min_unit_seconds(cfg, runner::UnitCommand::kCalibrate);
  f.setting.units = cfg.service ? runner::round_advice(j.head.result, *cfg.service, unit_s)  // a service's rounds
                                : runner::unit_advice(j.head.result, unit_s);
  return f;
}

Calibrated run_calibration(const runner::Config& cfg, runner::MeasureOptions mo, int pairs, uint64_t seed,
                           double slowdown, runner::SignalWatch* signals) {
  mo.runs = pairs;  // a fixed number of pairs: ab's max_runs below is the same
  Calibrated c{verdict::ab(cfg, cfg.binary, cfg.binary, mo, seed, pairs, signals), {}};
  verdict::throw_failure(c.aa);
  const auto opts = verdict::compare_options(&cfg, c.aa.head.result.functions);
  c.figures = calibration_figures(c.aa, cfg, opts, slowdown, pairs);
  return c;
}

}  // namespace gate::calibrate
