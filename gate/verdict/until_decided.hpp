// "Measure until decided": the loop check and ab share. Runs are added (one per side in check, a
// pair in a seeded random order in ab) and the comparison redone until no verdict is inconclusive
// or max_runs is reached. Two seams: a Schedule says which runs to add next; a Judge says whether
// what was measured so far is decided. May include runner/ and stats/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "results/result.hpp"

#include "stats/compare.hpp"

namespace gate::runner {
class Measurer;
class SignalWatch;
}  // namespace gate::runner

namespace gate::verdict {

// One side being measured: Measurers in gate (one per layout variant), a fake in the tests.
class Side {
 public:
  virtual ~Side() = default;
  // Adds one run (a unit of executions_per_unit() executions); false once a run failed or gate was
  // interrupted (then no more are added).
  virtual bool add_run() = 0;
  virtual bool failed() const = 0;
  virtual int runs_done() const = 0;
  // Units one execution at a time (InterleavedPairs alternates the sides inside a unit pair). A side
  // whose units are single runs adds a run per execution and closes nothing.
  virtual bool add_execution() { return add_run(); }
  virtual bool close_unit() { return !failed(); }
  virtual double last_execution_seconds() const { return 0; }
  virtual void set_executions_per_unit(int) {}
  virtual int executions_per_unit() const { return 1; }
  // Sampled executions (runner::Measurer::execute_sampled): how many a unit has, and one more into
  // the open unit.
  virtual int sampled_per_unit() const { return 0; }
  virtual bool add_sampled_execution(bool /*keep*/ = true) { return !failed(); }
  virtual void set_sampled_per_unit(int) {}
  virtual double last_sampled_seconds() const { return 0; }
};

// Measurers as a Side, watching `signals`. Several Measurers are layout variants of one side
// (gate ab --base-binary repeated): unit u is measured by variant u mod K (round robin, so every
// stretch of the measurement meets every layout), and the side's runs are all variants' runs in
// the order they were measured.
class MeasuredSide : public Side {
 public:
  MeasuredSide(std::vector<runner::Measurer*> variants, runner::SignalWatch* signals);
  MeasuredSide(runner::Measurer& m, runner::SignalWatch* signals) : MeasuredSide(std::vector{&m}, signals) {}
  bool add_run() override;
  bool failed() const override;
  int runs_done() const override { return static_cast<int>(runs_.size()); }
  bool add_execution() override;
  bool close_unit() override;
  double last_execution_seconds() const override;
  void set_executions_per_unit(int k) override;
  int executions_per_unit() const override;
  int sampled_per_unit() const override;
  bool add_sampled_execution(bool keep = true) override;
  // Sampled executions from the next unit on, on every variant (Measurer::set_sampled_per_unit).
  void set_sampled_per_unit(int n) override;
  double last_sampled_seconds() const override;
  bool can_sample_apart() const;
  // Every run so far becomes a pilot (RunResult::pilot): gate ab's first pair, when the probes
  // changed after it.
  void mark_pilots();
  // The runs of every variant, in the order measured (index 1..n).
  const std::vector<RunResult>& runs() const { return runs_; }
  int layouts() const { return static_cast<int>(variants_.size()); }

 private:
  runner::Measurer& current() const { return *variants_[runs_.size() % variants_.size()]; }
  std::vector<runner::Measurer*> variants_;
  runner::SignalWatch* signals_;
  std::vector<RunResult> runs_;
};

// Which runs to add next. A round is what one more step of the loop adds: one run of one side, or
// one run of each side.
class Schedule {
 public:
  virtual ~Schedule() = default;
  // Adds `rounds` rounds, stopping at the first failed run; false once a side failed.
  virtual bool add_rounds(int rounds) = 0;
  // Complete rounds so far (runs per side): what max_runs bounds.
  virtual int rounds_done() const = 0;
  virtual bool failed() const = 0;
  // How a round is named in progress lines: "run", "pair of runs".
  virtual std::string round_name() const = 0;
};

// One side (gate check: head against a stored baseline).
class OneSide : public Schedule {
 public:
  explicit OneSide(Side& side) : side_(side) {}
  bool add_rounds(int rounds) override;
  int rounds_done() const override { return side_.runs_done(); }
  bool failed() const override { return side_.failed(); }
  std::string round_name() const override;

 private:
  Side& side_;
};

// Two sides, one run each per round, which goes first drawn from a seeded generator (A B B A ...),
// so that drift of the machine hits both alike and the same seed gives the same order.
// With min_unit_seconds > 0 a round is a pair of units: the first round runs one execution a side,
// which sets the executions per unit (executions_per_unit() from their mean duration), and every
// unit pair alternates the sides execution by execution in the seeded order, so that both sides'
// executions cover the same stretch of time; then the sides' sampled executions, alternated alike.
class InterleavedPairs : public Schedule {
 public:
  // fixed_executions > 0: every unit has this many executions, not planned (a service's rounds).
  InterleavedPairs(Side& base, Side& head, uint64_t seed, double min_unit_seconds = 0, int fixed_executions = 0)
      : base_(base), head_(head), rng_(seed), min_unit_seconds_(min_unit_seconds), fixed_(fixed_executions) {}
  bool add_rounds(int rounds) override;
  int rounds_done() const override { return head_.runs_done(); }
  bool failed() const override { return base_.failed() || head_.failed(); }
  std::string round_name() const override;
  // The executions' length changed (calls: auto removed probes after the first pair): the next
  // pair plans the units again from its first executions (one unit of min_unit_seconds). Without
  // it the units stay sized by the probed first pair: a fraction of the planned length where the
  // removed probes were most of an execution (hotloop: 7 s probed, ~1 s without), and as many
  // fewer samples a unit.
  // min_executions > 0: no fewer executions a unit (units sized by samples:
  // verdict::sample_sized_executions).
  // The first unit pair also runs one sampled execution a side whose samples are dropped: it times
  // a bare execution, from which the sampled executions a unit are planned (verdict/instruments.hpp).
  void trial_sampled() { trial_sampled_ = true; }
  void replan(std::function<void(const std::string&)> log = nullptr, int min_executions = 0) {
    if (fixed_ > 0 || !planned_) return;
    planned_ = false;
    replan_log_ = std::move(log);
    min_executions_ = min_executions;
  }

 private:
  bool add_unit_pair();
  bool both(bool base_first, bool (Side::*step)());
  Side& base_;
  Side& head_;
  std::mt19937_64 rng_;
  double min_unit_seconds_;
  int fixed_ = 0;
  int min_executions_ = 0;
  bool planned_ = false;
  bool trial_sampled_ = false;
  std::function<void(const std::string&)> replan_log_;
};

// gate ab --slice-ms: both workloads run at once, switched every slice_ms (runner/sliced.hpp).
// A round is one run of each workload cut into many pairs of slices; rounds are added until at
// least the asked number of pairs more were measured, and rounds_done() counts pairs, so that
// runs and max_runs bound paired units as they bound pairs of runs.
class SlicedPairs : public Schedule {
 public:
  SlicedPairs(runner::Measurer& base, runner::Measurer& head, double slice_ms, uint64_t seed,
              runner::SignalWatch* signals)
      : base_(base), head_(head), slice_ms_(slice_ms), rng_(seed), signals_(signals) {}
  bool add_rounds(int pairs) override;
  int rounds_done() const override;
  bool failed() const override;
  std::string round_name() const override;

 private:
  runner::Measurer& base_;
  runner::Measurer& head_;
  double slice_ms_;
  std::mt19937_64 rng_;
  runner::SignalWatch* signals_;
};

// Is it decided: the comparison of what the sides measured so far.
using Judge = std::function<stats::Comparison()>;

struct Budget {
  int runs = 1;      // rounds measured before the first comparison
  int max_runs = 1;  // rounds at most (less than runs means runs)...
  // ...except for a test whose estimate lies past its regression threshold and that is predicted
  // to decide within this many rounds: measuring goes on for it up to here (less than max_runs
  // means max_runs: no extension). The looks' sequential correction covers every round up to here
  // from the first look, so going on costs no false-alarm rate.
  int suspect_max_runs = 0;
  int last() const { return std::max({runs, max_runs, suspect_max_runs}); }
};

// Adds budget.runs rounds, then compares and adds one round at a time while a verdict is
// inconclusive and fewer than max_runs rounds are done, then, up to suspect_max_runs, while a test
// past its threshold looks decidable within it (Comparison::suspects_decidable_within; the
// comparison's `extension` says so). Returns the last comparison; an empty one when a run failed
// before any comparison (the caller then reports the failure). `log` gets one progress line per
// added round.
stats::Comparison measure_until_decided(Schedule& schedule, const Judge& judge, const Budget& budget,
                                        const std::function<void(const std::string&)>& log);

}  // namespace gate::verdict
