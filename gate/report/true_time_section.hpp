// True time in reports (issue 9): the probe calibration line every report shows with its spread,
// and `gate run --summary` (per function: calls, total, self, probe share; worst first).
#pragma once

#include <string>
#include <vector>

#include "report/report_inputs.hpp"
#include "results/result.hpp"

namespace gate::report {

// "probe costs (calibrated on this host, median [range] of 5 rounds): entry 1.2 us [1.1-1.3], ..."
// or "times are raw: no probe calibration".
std::string calibration_line(const ProbeCalibration& c);

// "<label>: times exclude other processes' time on the threads' CPUs (exclude_preemption): N of M calls had some
// taken out; K returned on another thread than they entered on and kept theirs".
std::string preemption_line(const ResultFile& r, const std::string& label);

// Notices for a comparison: each side's preemption line when it excluded preemption, the calibration (head's, else base's), and a warning when one side was
// compensated and the other not (their times are not comparable). Empty when both are raw.
std::vector<std::string> true_time_notices(const ReportInputs& in);

// Where a function's extra time per call went between two measurements, from the traced call
// graph: "Checkout +280 us/call: pricing.Apply +250 us (89%), self +30 us". Runs labelled "base"
// or "head" (gate ab) are taken from their side only. "" when either side lacks true time or calls.
std::string attribution_line(const ResultFile& base, const ResultFile& head, const std::string& function);

// Notices plus one attribution line per regressed function (what every report shows first).
std::vector<std::string> true_time_notices(const stats::Comparison& c, const ReportInputs& in);

// One line per function over all runs, by total compensated time (worst first): calls, total,
// per call, self, self share, probe share (the part of the raw windows that was probe cost).
std::string render_summary(const ResultFile& r);

}  // namespace gate::report
