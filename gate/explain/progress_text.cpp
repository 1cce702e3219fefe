// Measure-until-decided's progress lines (explain/progress_text.hpp), moved from
// verdict/until_decided.* (issue 57): the loop counts, these words say what it does next.
#include "explain/progress_text.hpp"

namespace gate::explain {

std::string round_name(bool paired, int executions_per_unit) {
  const std::string k = std::to_string(executions_per_unit);
  if (paired) return executions_per_unit > 1 ? "pair of units (" + k + " executions per side)" : "pair of runs";
  return executions_per_unit > 1 ? "unit (" + k + " executions)" : "run";
}

std::string time_slices_round_name() { return "round of time slices"; }

std::string units_replanned(const std::string& units, bool sized_by_samples) {
  return "units planned again from the next executions: " + units + (sized_by_samples ? ", sized by samples" : "");
}

std::string still_inconclusive() { return "some verdicts are inconclusive"; }

std::string past_max_runs(int max_runs, const std::vector<std::string>& tests, int last) {
  return "past max_runs (" + std::to_string(max_runs) + ") for " + (tests.empty() ? std::string() : tests.front()) +
         (tests.size() > 1 ? " and " + std::to_string(tests.size() - 1) + " more" : "") +
         ", which reads past its threshold and looks decidable by " + std::to_string(last);
}

std::string one_more_round(const std::string& why, const std::string& round, int next, int of) {
  return why + ": one more " + round + " (" + std::to_string(next) + "/" + std::to_string(of) + ")";
}

}  // namespace gate::explain
