// The adaptive loop of check and ab, and the two schedules they use.
#include "verdict/until_decided.hpp"

#include <algorithm>

#include "runner/measure.hpp"
#include "runner/sliced.hpp"

namespace gate::verdict {

bool MeasuredSide::add_run() { return m_.run(1, signals_); }
bool MeasuredSide::failed() const { return m_.failed(); }
int MeasuredSide::runs_done() const { return m_.runs_done(); }

bool OneSide::add_rounds(int rounds) {
  for (int i = 0; i < rounds && !side_.failed(); ++i) side_.add_run();
  return !side_.failed();
}

bool InterleavedPairs::add_rounds(int rounds) {
  for (int i = 0; i < rounds && !failed(); ++i) {
    if (rng_() & 1) {
      base_.add_run() && head_.add_run();
    } else {
      head_.add_run() && base_.add_run();
    }
  }
  return !failed();
}

bool SlicedPairs::add_rounds(int pairs) {
  const int target = rounds_done() + pairs;
  while (rounds_done() < target && !failed()) {
    runner::SlicedRound round;
    if (!runner::run_sliced_round(base_, head_, slice_ms_, rng_, signals_, &round)) break;
    if (round.pairs == 0) break;  // cannot happen (every round pairs its first slices); never loop on it
  }
  return !failed();
}

int SlicedPairs::rounds_done() const { return head_.runs_done(); }
bool SlicedPairs::failed() const { return base_.failed() || head_.failed(); }

stats::Comparison measure_until_decided(Schedule& schedule, const Judge& judge, const Budget& budget,
                                        const std::function<void(const std::string&)>& log) {
  const int max_runs = std::max(budget.runs, budget.max_runs);
  const int last = budget.last();
  schedule.add_rounds(budget.runs);
  stats::Comparison c;
  std::vector<std::string> extended_for;
  while (!schedule.failed()) {
    c = judge();
    const int done = schedule.rounds_done();
    std::string why;
    if (done < max_runs) {
      if (!c.need_more_runs(max_runs)) break;
      why = "some verdicts are inconclusive";
    } else {
      const std::vector<std::string> suspects = done < last ? c.suspects_decidable_within(last) : std::vector<std::string>{};
      if (suspects.empty()) break;
      for (const auto& s : suspects)
        if (std::find(extended_for.begin(), extended_for.end(), s) == extended_for.end()) extended_for.push_back(s);
      why = "past max_runs (" + std::to_string(max_runs) + ") for " + suspects.front() +
            (suspects.size() > 1 ? " and " + std::to_string(suspects.size() - 1) + " more" : "") +
            ", which reads past its threshold and looks decidable by " + std::to_string(last);
    }
    if (log)
      log(why + ": one more " + schedule.round_name() + " (" + std::to_string(done + 1) + "/" +
          std::to_string(done < max_runs ? max_runs : last) + ")");
    schedule.add_rounds(1);
  }
  if (!extended_for.empty()) c.extension = {max_runs, schedule.rounds_done(), extended_for};
  return c;
}

}  // namespace gate::verdict
