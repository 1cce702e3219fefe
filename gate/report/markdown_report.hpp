// The Markdown report, for a pull-request comment or $GITHUB_STEP_SUMMARY: a headline with the
// counts, the functions that need attention in a table, the rest folded in <details>, what to do
// about each regression, and one line with the thresholds and the statistics used.
#pragma once

#include <string>

#include "report/report_inputs.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// GitHub-flavoured Markdown; deterministic for a given comparison and inputs.
std::string render_markdown(const stats::Comparison& c, const ReportInputs& in);

}  // namespace gate::report
