// The instrument of each function in the verdict (issue 39): a function measured by CPU samples
// has its probes' latency tests replaced by the sampled test (stats/instrument.hpp), and the family
// is decided again over the tests that remain.
#pragma once

#include <map>
#include <functional>
#include <string>
#include <vector>

#include "results/result.hpp"
#include "runner/config.hpp"
#include "stats/compare.hpp"
#include "verdict/until_decided.hpp"

namespace gate::verdict {

// Chooses each function's instrument (o.measure, o.measure_default; auto from the first unit of each
// side), records it and the probe share in `c`, and replaces the sampled functions' tests. Re-decides
// the family (verdict::redecide) when a test was replaced. Nothing changes when no run was sampled
// and no function is set to samples.
// test_base/test_head (optional): the runs the sampled test compares, when they are not all of
// them (gate ab's pilot pair left out, RunResult::pilot); the instrument facts (probe share,
// on-CPU share, samples an execution) come from the first units of all the runs, the pilot's
// included: it is the pair that still had every probe.
void judge_instruments(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                       const std::vector<RunResult>& head_runs, const stats::CompareOptions& o,
                       const std::vector<RunResult>* test_base = nullptr,
                       const std::vector<RunResult>* test_head = nullptr);

// The functions `calls: auto` switches to counting calls only (runner::Measurer::count_calls_only)
// after gate ab's first pair: those the sampled instrument measures, chosen from that pair, whose
// probes still time them. Why: their return probes are the costly ones (single-stepped) and are no
// longer read once samples measure them; dropping them makes the run shorter and takes their cost
// out of every traced caller's window.
// planned_executions: the executions of the units to come (sample_sized_executions'), 0: the first pair's.
std::vector<std::string> entry_counted_after_first_pair(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                                        const std::vector<RunResult>& head_runs,
                                                        const stats::CompareOptions& o, int planned_executions = 0);

// gate ab's units sized by samples: after the first pair, the executions a unit needs so that every
// function auto would measure by samples but for its count (stats::executions_for_samples) gets
// its target count, among those that reach the floor (InstrumentRule::min_samples_per_unit) within
// max_unit_seconds of probed executions (the first pair's length per execution: the units to come
// are shorter where probes go) and runner::kMaxExecutionsPerUnit. 0 when no function needs more
// than the first pair's units. Why: a 2 us function of a workload whose execution lasts 0.2 s gets
// ~7 samples an execution at 4,999 Hz (the shop's pricing.Apply), far below the ~100 a unit below
// which a count is as noisy as binomial; the probes would measure mostly themselves instead.
// apart: the executions are sampled executions without probes, run beside the probed ones
// (runner::Measurer::execute_sampled), as many as fit in max_unit_seconds (gate ab passes
// kMaxSampledApartSeconds) at bare_execution_s each (the first pair's trial), at most
// runner::kMaxExecutionsPerUnit; else the probed units grow, within max_unit_seconds of probed time. Why apart: on a VM the probes make an
// execution many times longer (the shop: 10-13 s probed at load 8, ~0.3 s bare), so probed units
// long enough for 100 samples of Apply would take minutes.
// `chosen` (optional) receives the functions that set it, with their samples per execution.
struct SampleSizing {
  bool apart = false;  // executions apart from the probed ones (runner::Measurer::execute_sampled)
  int cap = 0;         // the most executions a unit it allowed
  int executions = 0;
  std::vector<std::pair<std::string, double>> functions;  // name, self samples per execution
  // Would need more than the cap: stay on probes. Its samples an execution pooled, and per side
  // behind it: a pooled 27.5 can be 1 at base and 54 at head, and the sparser side is what a unit
  // can count.
  struct TooSparse {
    std::string function;
    double per_execution = 0, base = 0, head = 0;
  };
  std::vector<TooSparse> too_sparse;
  // Of `functions`, those measured by samples only for their first pair's reading
  // (stats::decisive_first_pair: short of the floor even at the cap, or off CPU for most of their
  // probed time): the first pair's ratio, how many sd of its count beyond the band, and the sparser
  // side's samples a unit at the cap.
  struct Decisive {
    std::string function;
    double ratio = 0, sds = 0, smaller_side_samples = 0;
  };
  std::vector<Decisive> decisive;
};
SampleSizing sample_sized_executions(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                     const std::vector<RunResult>& head_runs, const stats::CompareOptions& o,
                                     double max_unit_seconds, bool apart = false, double bare_execution_s = 0);

// Progress lines: "units of 29 executions from the second pair on, so that the sampled instrument
// counts ~200 samples a unit: example.com/shop/pricing.Apply 7.0 samples an execution", and per
// function left on probes: "... stays on probes: 0.4 samples an execution (base 0.3, head 0.5), 100 a unit would take
// units longer than 10 s".
std::string describe_sizing(const SampleSizing& s);
std::string describe_too_sparse(const SampleSizing& s, const SampleSizing::TooSparse& t);

// The longest unit sample_sized_executions plans, in probed execution time (seconds).
inline constexpr double kMaxSampledUnitSeconds = 10.0;
// The most time a unit's sampled executions take a side (apart). Short: they are what the sampled
// instrument costs per unit on top of the probed executions (hotloop: ~0.3 s bare executions, ~12
// a unit for its 200 samples). The shop's pricing.Apply sits at the floor's edge: on issue 34's
// branch it reached 100 samples within 3 s in 3 tries of 6 (load 2-4), and within 6 s in 1 of 5
// (load 4-5: the bare executions grow with the load), so 6 s bought nothing measurable
// (tests/bench/results/pre_merge-auto-pilot.txt).
inline constexpr double kMaxSampledApartSeconds = 3.0;

// Of `names` (entry_counted_after_first_pair's), those whose probes can go altogether, with their
// calls per execution: the workload made the same calls of them in both sides' first unit (a whole
// number per execution, equal on both sides: a fixed amount of work, as gate's docs ask of a
// workload), and it is not a service (a service's rounds are driven by a load that need not repeat
// itself exactly). Why: even an entry probe alone traps on every call; on a VM that is ~1-22 us, and
// part of it lands in the function's own CPU time (caches and branch predictors flushed by the
// trap), which dilutes a change. The others keep counting at their entries.
std::map<std::string, uint64_t> fixed_calls_after_first_pair(const runner::Config& cfg,
                                                             const std::vector<std::string>& names,
                                                             const std::vector<RunResult>& base_runs,
                                                             const std::vector<RunResult>& head_runs);

// A schedule that calls `after_first` once, when its first round (pair) is done. When it returns
// true the first round was a pilot (a trial that sized the sampled executions, which it lacks): it
// does not count as a round, and one more round follows it at once, so that the sampled test gets
// every round the budget counts (runs: 5 and --max-runs 5 give 5 pairs with sampled executions).
class AfterFirstRound : public Schedule {
 public:
  AfterFirstRound(Schedule& inner, std::function<bool()> after_first)
      : inner_(inner), after_first_(std::move(after_first)) {}
  bool add_rounds(int rounds) override;
  int rounds_done() const override { return inner_.rounds_done() - (pilot_ ? 1 : 0); }
  bool failed() const override { return inner_.failed(); }
  std::string round_name() const override { return inner_.round_name(); }

 private:
  Schedule& inner_;
  std::function<bool()> after_first_;
  bool done_ = false;
  bool pilot_ = false;
};

}  // namespace gate::verdict
