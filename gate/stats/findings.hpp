// Internal to stats/: the findings compare() records (see Finding in compare.hpp).
#pragma once

#include <cstddef>
#include <vector>

#include "stats/compare.hpp"

namespace gate::stats {

// Base and head ran in different contexts (CPU, kernel, Go, gate, attach mode, config).
void context_findings(const RunContext& base, const RunContext& head, std::vector<Finding>& out);
// One function's probes differ between the sides, or a side lost or left unmatched too many calls.
void function_findings(const FunctionComparison& fc, const FunctionInfo* base_info, const FunctionInfo* head_info,
                       size_t base_runs, size_t head_runs, const CompareOptions& o, std::vector<Finding>& out);

}  // namespace gate::stats
