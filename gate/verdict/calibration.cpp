// gate calibrate's figures (verdict/calibration.hpp).
#include "verdict/calibration.hpp"

#include <algorithm>

#include "runner/rounds.hpp"
#include "runner/unit_size.hpp"

namespace gate::verdict {

CalibrationFigures calibration_figures(const AbJudged& j, const runner::Config& cfg, const stats::CompareOptions& o,
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

}  // namespace gate::verdict
