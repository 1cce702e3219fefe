// True time (issue 9): the bridge between the probe engine's compensated counters and the
// result file, and between a stored calibration and the costs the BPF program subtracts.
#pragma once

#include "probe/probe_engine.hpp"
#include "results/result.hpp"

namespace gate::truetime {

// The true-time part of one function's counters (raw windows, descendants, self time).
// `functions` names the callers (FunctionInfo::id is the engine's function id).
TrueTimeRun true_time_of(const probe::FunctionCounters& c, const std::vector<FunctionInfo>& functions);

// The per-hit costs the BPF program subtracts, from a calibration's medians; all zero when the
// calibration is absent (raw times).
probe::ProbeCosts costs_from(const ProbeCalibration& c);

}  // namespace gate::truetime
