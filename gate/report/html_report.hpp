// The HTML report: one self-contained file (inline CSS and SVG; no script, no network) with the
// headline, the table, and per function a plot of the base and head latency distributions.
#pragma once

#include <string>

#include "report/report_inputs.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// Per function an SVG plot: the cumulative distribution (CDF) of call latencies on a log time
// axis, base and head, one thin line per run and a thick one for all runs pooled, with the compared
// quantiles marked where the statistics put them. Needs in.base / in.head for the plots (without
// them the report has the table only). Every plot is an <svg class="plot"> whose drawn
// distributions are <path class="cdf ..."> elements (what tests/report checks in Chromium).
std::string render_html(const stats::Comparison& c, const ReportInputs& in);

}  // namespace gate::report
