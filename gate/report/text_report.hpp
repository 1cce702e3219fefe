// The plain-text report of a comparison: one aligned line per function, worst first, then the
// warnings, the functions found on one side only, and a one-line summary a CI log can grep.
#pragma once

#include <string>
#include <vector>

#include "explain/verdict_text.hpp"
#include "report/report_inputs.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// "812ns", "12.3us", "4.56ms", "1.23s": three significant digits, ASCII units (CI logs).
std::string format_duration(double ns);
// "1.31x [1.24, 1.38]": explain's, which every format writes alike.
using explain::format_ratio;
// "gate: 1 regression, 0 improvements, 11 unchanged, 0 inconclusive (12 functions, 5 runs a
// side; hierarchical bootstrap 95% CI, Holm)"; insufficient data is listed when there is any.
// With benchmarks the counts hold the benchmark metrics' verdicts too (everything that sets the exit
// code): "(4 functions, 3 benchmark metrics of 2 benchmarks, ...)".
std::string summary_line(const stats::Comparison& c);
// "all functions together (...): 1.02x [0.98, 1.06] unchanged", or "" when not computed.
std::string common_shift_line(const stats::Comparison& c);
// "1000 -> 2000 (2.00x)": calls per run, base -> head, with the ratio when it changed.
std::string calls_cell(const stats::FunctionComparison& f);
// "thresholds: +3% / -3%", then the quantiles with a band of their own ("p99 +25% / -25%"), then
// the exceptions a config set per function ("except main.f01 p99 +10% / -5%"); empty when nothing
// was compared.
std::string thresholds_line(const stats::Comparison& c);

// The whole report, ending with the summary line and a newline. Reads notices, next steps, quiet,
// color, quantiles and reasons from `in`.
std::string render_text(const stats::Comparison& c, const ReportInputs& in = {});

}  // namespace gate::report
