// The progress lines of gate ab's instruments, from the values verdict/instruments plans with: the
// sampled units' sizing, a function sparse at the cap, the pilot pair.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gate::explain {

// "from the second pair on, 12 executions a unit without probes, whose CPU samples measure ...: main.hot
// 17.6 samples an execution" (apart), or "units of 12 executions from the second pair on, so that ...".
// `functions`: name, self samples an execution; `target`: the samples a unit is sized for.
std::string sampled_units_sizing(bool apart, int executions, double target,
                                 const std::vector<std::pair<std::string, double>>& functions);
// "main.cold: ~40 samples a unit at the cap of 10 executions (10 s of probed executions): its
// cpu/call pools the sparse counts over the pairs". `cap_seconds`: the unit's cap in seconds.
std::string sparse_at_cap(const std::pair<std::string, double>& function, int cap, bool apart, double cap_seconds);
// Why the first pair is in no test (the instruments' figures are read in it); `runs`: the pairs planned.
std::string pilot_pair(int runs);

}  // namespace gate::explain
