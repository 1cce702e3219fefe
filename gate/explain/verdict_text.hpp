// The words of a verdict that every report format shows alike (report/ lays them out): a test's
// ratio and interval, why a function got its verdict, the suspect tests' lines, the common shift's label.
#pragma once

#include <string>
#include <vector>

#include "stats/compare.hpp"

namespace gate::explain {

// What the reports and the progress lines call the runs' common speed shift (stats::Comparison::
// common_shift): "all functions together".
std::string common_shift_label();
// A threshold band: "+10% / -5%" (regression above, improvement below). The one spelling every
// report and the threshold-change notice use.
std::string band_text(const stats::Band& b);
// "1.31x [1.24, 1.38]"; "-" when the quantile was not tested.
std::string format_ratio(const stats::QuantileComparison& q);
// Why a function got its verdict, one clause per quantile that is not unchanged:
// "p50 1.42x [1.40, 1.45] above +3%; calls per run 1000 -> 2000". regressions_only: only what
// fails (the regressed quantiles, a calls change that fails by the policy).
std::string verdict_reason(const stats::FunctionComparison& f, bool regressions_only = false);
// One line per suspect test ("pricing.Apply p50 1.13x [1.08, 1.19] (threshold +10%): ..."), for the
// top of every report; empty when there is none.
std::vector<std::string> suspect_lines(const stats::Comparison& c);

}  // namespace gate::explain
