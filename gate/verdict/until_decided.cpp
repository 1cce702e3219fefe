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
  schedule.add_rounds(budget.runs);
  stats::Comparison c;
  while (!schedule.failed()) {
    c = judge();
    if (!c.need_more_runs(max_runs) || schedule.rounds_done() >= max_runs) break;
    if (log)
      log("some verdicts are inconclusive: one more " + schedule.round_name() + " (" +
          std::to_string(schedule.rounds_done() + 1) + "/" + std::to_string(max_runs) + ")");
    schedule.add_rounds(1);
  }
  return c;
}

}  // namespace gate::verdict
