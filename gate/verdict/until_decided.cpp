// The adaptive loop of check and ab, and the two schedules they use.
#include "verdict/until_decided.hpp"

#include <algorithm>
#include <utility>

#include "explain/progress_text.hpp"
#include "explain/verdict_text.hpp"
#include "runner/measure.hpp"
#include "runner/sliced.hpp"
#include "runner/unit_size.hpp"

namespace gate::verdict {

MeasuredSide::MeasuredSide(std::vector<runner::Measurer*> variants, runner::SignalWatch* signals)
    : variants_(std::move(variants)), signals_(signals) {}

bool MeasuredSide::add_run() {
  while (!failed() && current().executions_in_unit() < current().executions_per_unit()) add_execution();
  return close_unit();
}

bool MeasuredSide::failed() const {
  return std::any_of(variants_.begin(), variants_.end(), [](const runner::Measurer* m) { return m->failed(); });
}

bool MeasuredSide::add_execution() { return !failed() && current().execute(signals_); }

bool MeasuredSide::close_unit() {
  runner::Measurer& m = current();
  if (failed() || m.executions_in_unit() == 0) return !failed();
  if (!m.close_unit()) return false;
  RunResult r = m.result().runs.back();
  r.index = runs_done() + 1;  // the side's unit number, across its variants (what pairs units)
  runs_.push_back(std::move(r));
  return true;
}

double MeasuredSide::last_execution_seconds() const { return current().last_execution_seconds(); }

// The longest of the variants' last sampled executions: gate ab reads it after the first pair's
// trial, when current() has moved on to the next layout variant, which ran none (0 there sent every
// layout-variant gate ab, ci/pre-merge.sh's included, to growing probed units instead).
double MeasuredSide::last_sampled_seconds() const {
  double s = 0;
  for (const auto* m : variants_) s = std::max(s, m->last_sampled_seconds());
  return s;
}

void MeasuredSide::set_executions_per_unit(int k) {
  for (auto* m : variants_) m->set_executions_per_unit(k);
}

int MeasuredSide::executions_per_unit() const { return variants_.front()->executions_per_unit(); }

int MeasuredSide::sampled_per_unit() const { return variants_.front()->sampled_per_unit(); }

bool MeasuredSide::add_sampled_execution(bool keep) { return !failed() && current().execute_sampled(signals_, keep); }

void MeasuredSide::set_sampled_per_unit(int n) {
  for (auto* m : variants_) m->set_sampled_per_unit(n);
}

void MeasuredSide::mark_pilots() {
  for (auto& r : runs_) r.pilot = true;
}

bool MeasuredSide::can_sample_apart() const {
  return std::all_of(variants_.begin(), variants_.end(), [](const runner::Measurer* m) { return m->can_sample_apart(); });
}

bool OneSide::add_rounds(int rounds) {
  for (int i = 0; i < rounds && !side_.failed(); ++i) side_.add_run();
  return !side_.failed();
}

std::string OneSide::round_name() const {
  return explain::round_name(false, side_.executions_per_unit());
}

bool InterleavedPairs::both(bool base_first, bool (Side::*step)()) {
  Side& first = base_first ? base_ : head_;
  Side& second = base_first ? head_ : base_;
  return (first.*step)() && (second.*step)();
}

// One unit pair, execution by execution: each slot runs one execution of each side in a seeded
// order. The first pair plans the units from its first slot's durations.
bool InterleavedPairs::add_unit_pair() {
  if (!planned_) {
    if (!both(rng_() & 1, &Side::add_execution)) return false;
    const double execution_s = (base_.last_execution_seconds() + head_.last_execution_seconds()) / 2;
    const int k = fixed_ > 0 ? fixed_
                             : std::max(runner::executions_per_unit(min_unit_seconds_, execution_s), min_executions_);
    base_.set_executions_per_unit(k);
    head_.set_executions_per_unit(k);
    planned_ = true;
    if (replan_log_) {
      replan_log_(explain::units_replanned(runner::describe_units(k, execution_s, min_unit_seconds_),
                                           k == min_executions_ && k > 1));
      replan_log_ = nullptr;
    }
    for (int e = 1; e < k; ++e)
      if (!both(rng_() & 1, &Side::add_execution)) return false;
  } else {
    for (int e = 0; e < base_.executions_per_unit(); ++e)
      if (!both(rng_() & 1, &Side::add_execution)) return false;
  }
  // The sampled executions, alternated as the probed ones; the first pair's trial (trial_sampled).
  auto sampled_slot = [&](bool keep) {
    const bool base_first = rng_() & 1;
    Side& first = base_first ? base_ : head_;
    Side& second = base_first ? head_ : base_;
    return first.add_sampled_execution(keep) && second.add_sampled_execution(keep);
  };
  const int sampled = std::min(base_.sampled_per_unit(), head_.sampled_per_unit());
  for (int e = 0; e < sampled; ++e)
    if (!sampled_slot(true)) return false;
  if (std::exchange(trial_sampled_, false) && sampled == 0 && !sampled_slot(false)) return false;
  return both(true, &Side::close_unit);
}

bool InterleavedPairs::add_rounds(int rounds) {
  for (int i = 0; i < rounds && !failed(); ++i) {
    if (min_unit_seconds_ > 0) {
      add_unit_pair();
    } else if (rng_() & 1) {
      base_.add_run() && head_.add_run();
    } else {
      head_.add_run() && base_.add_run();
    }
  }
  return !failed();
}

std::string InterleavedPairs::round_name() const {
  return explain::round_name(true, base_.executions_per_unit());
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
std::string SlicedPairs::round_name() const { return explain::time_slices_round_name(); }
bool SlicedPairs::failed() const { return base_.failed() || head_.failed(); }

stats::Comparison measure_until_decided(Schedule& schedule, const Judge& judge, const Budget& budget,
                                        const std::function<void(const std::string&)>& log) {
  const int max_runs = std::max(budget.runs, budget.max_runs);
  const int last = budget.last();
  // The first rounds one at a time, each with a progress line once units have more than one
  // execution ("unit 3/10 (4 executions per side)").
  while (!schedule.failed() && schedule.rounds_done() < budget.runs) {
    const int before = schedule.rounds_done();
    schedule.add_rounds(1);
    if (schedule.rounds_done() == before) break;  // a side failed, or a round added nothing
    const std::string name = schedule.round_name();
    const size_t open = name.find(" (");
    if (log && open != std::string::npos && !schedule.failed())
      log("unit " + std::to_string(schedule.rounds_done()) + "/" + std::to_string(budget.runs) + name.substr(open));
  }
  stats::Comparison c;
  std::vector<std::string> extended_for;
  while (!schedule.failed()) {
    c = judge();
    const int done = schedule.rounds_done();
    std::string why;
    if (done < max_runs) {
      // Giving up on a test whose estimated pairs to decide are out of reach waits for half of
      // max_runs: at 5 pairs one slow pair puts the noise estimate several times too high
      // (tests/bench/sampled_lab.sh: hotloop's 8% head read 1.071x [0.804, 1.427] at 5 pairs and
      // was given up on, where 3 of 5 trials decided it by 8-12 pairs).
      if (!c.need_more_runs(2 * done < max_runs ? 0 : max_runs)) break;
      why = explain::still_inconclusive();
    } else {
      const std::vector<std::string> suspects =
          done < last ? c.suspects_decidable_within(last, explain::common_shift_label()) : std::vector<std::string>{};
      if (suspects.empty()) break;
      for (const auto& s : suspects)
        if (std::find(extended_for.begin(), extended_for.end(), s) == extended_for.end()) extended_for.push_back(s);
      why = explain::past_max_runs(max_runs, suspects, last);
    }
    if (log)
      log(explain::one_more_round(why, schedule.round_name(), done + 1, done < max_runs ? max_runs : last));
    schedule.add_rounds(1);
  }
  if (!extended_for.empty()) c.extension = {max_runs, schedule.rounds_done(), extended_for};
  return c;
}

}  // namespace gate::verdict
