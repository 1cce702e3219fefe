// The instruments' progress lines (explain/instruments_text.hpp), moved from verdict/instruments.cpp
// and verdict/judge.cpp (issue 57): verdict/ plans with values, these words say what it planned.
#include "explain/instruments_text.hpp"

#include "common/format.hpp"

namespace gate::explain {

std::string sampled_units_sizing(bool apart, int executions, double target,
                                 const std::vector<std::pair<std::string, double>>& functions) {
  std::string out = (apart ? "from the second pair on, " + std::to_string(executions) +
                                 " executions a unit without probes, whose CPU samples measure the functions whose "
                                 "windows are mostly gate's probes"
                           : "units of " + std::to_string(executions) + " executions from the second pair on") +
                    ", so that their cpu/call counts ~" + fmt("%.0f", target) + " samples a unit:";
  for (size_t i = 0; i < functions.size(); ++i)
    out += (i ? ", " : " ") + functions[i].first + " " + fmt("%.1f", functions[i].second) + " samples an execution";
  return out;
}

std::string sparse_at_cap(const std::pair<std::string, double>& function, int cap, bool apart, double cap_seconds) {
  return function.first + ": ~" + fmt("%.0f", function.second) + " samples a unit at the cap of " +
         std::to_string(cap) + " executions" + " (" + fmt("%g", cap_seconds) +
         (apart ? " s without probes)" : " s of probed executions)") + ": its cpu/call pools the sparse counts over the pairs";
}

std::string pilot_pair(int runs) {
  return "the first pair was the pilot: the instruments' figures are read in it (each function's window probe share, "
         "whether it waits), so it is in no test; the pairs are counted from the next one (unit 2 is pair 1/" +
         std::to_string(runs) + ")";
}

}  // namespace gate::explain
