// Kept for callers written before the probe plan had its folder (tests/bench): the plan lives in
// plan/probe_plan.hpp; new code includes that.
#pragma once

#include "plan/probe_plan.hpp"

namespace gate::runner {

using Target = plan::ProbePlan;
using plan::parse_go_version;
inline Target prepare_target(const std::string& binary, const std::vector<std::string>& patterns,
                             analysis::EntryPolicy policy = analysis::EntryPolicy::kAuto) {
  return plan::make_plan(binary, patterns, policy);
}

}  // namespace gate::runner
