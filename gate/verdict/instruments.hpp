// The instruments of each function in the verdict (issues 39, 54): its latency tests and its
// sampled test with the roles its window figures give them (stats/instrument.hpp), the family
// decided again over them; and gate ab's plan after its first pair (sampled executions, calls: auto).
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

// measure: auto (issue 54): every function whose runs were sampled is judged by its latency tests
// and its sampled cpu/call test at once (stats::Instrument::kBoth; stats::function_verdict), with
// the roles its window figures give them (stats::WindowFacts, read in the pilot pair or the first
// units, never decided again from the pairs tested): each latency test carries the window's probe
// share (its "unchanged" narrowed to the code's share of the window; no improvement from a window
// mostly probes), and the sampled test speaks for the function only when it does not wait and its
// figure fits its windows (else it may only flag). measure: probes keeps the latency tests alone
// (with the window's share), samples the sampled test alone. Records each function's figures in
// `c`, and the probe cost per traced call they came from, and re-decides the family.
// test_base/test_head (optional): the runs the tests compare when they are not all of them (gate
// ab's pilot pair left out, RunResult::pilot).
// probe_cost_ns: what a traced call's probes cost (stats::probe_cost_per_call; NaN: not known).
void judge_instruments(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                       const std::vector<RunResult>& head_runs, const stats::CompareOptions& o, double probe_cost_ns,
                       const std::vector<RunResult>* test_base = nullptr,
                       const std::vector<RunResult>* test_head = nullptr);

// The functions `calls: auto` switches to counting calls only (runner::Measurer::count_calls_only)
// after gate ab's first pair: those set to `measure: samples` whose probes still time them (their
// return probes are the costly ones, single-stepped, and are no longer read). measure: auto keeps
// every probe (issue 54): its latency tests judge beside its samples, and no figure of the pilot's
// decides what is measured (a window share near a limit took the probes off in one try and not the
// next; latency by argument needs them).
std::vector<std::string> entry_counted_after_first_pair(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                                        const std::vector<RunResult>& head_runs,
                                                        const stats::CompareOptions& o, double probe_cost_ns = 0);

// gate ab's sampled executions, sized after the first pair: the executions a unit needs so that
// every function whose window is at least WindowRule::sampled_share probes and that samples can
// speak for counts target_samples a unit on its sparser side, at most `cap` (max_unit_seconds of
// bare executions, bare_execution_s each; or, not apart, of probed ones) and
// runner::kMaxExecutionsPerUnit. A function short of the target at the cap is measured all the same
// (the sampled test pools sparse counts and takes the exact test where a side counted none) and
// named in `sparse`. 0 executions when no function needs more than the first pair's units.
// apart: the executions are sampled executions without probes, beside the probed ones
// (runner::Measurer::execute_sampled). Why apart: on a VM the probes make an execution many times
// longer (the shop: 10-13 s probed at load 8, ~0.3 s bare).
struct SampleSizing {
  bool apart = false;
  int cap = 0;
  int executions = 0;
  std::vector<std::pair<std::string, double>> functions;  // name, self samples an execution (sparser side)
  std::vector<std::pair<std::string, double>> sparse;     // name, samples a unit at the cap (sparser side)
};
inline constexpr double kTargetSamplesPerUnit = 200;
inline constexpr double kMinSamplesPerUnit = 100;
SampleSizing sample_sized_executions(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                     const std::vector<RunResult>& head_runs, const stats::CompareOptions& o,
                                     double probe_cost_ns, double max_unit_seconds, bool apart = false,
                                     double bare_execution_s = 0);

// Its progress lines are explain/instruments_text's (sampled_units_sizing, sparse_at_cap).

// The longest unit sample_sized_executions plans, in probed execution time (seconds).
inline constexpr double kMaxSampledUnitSeconds = 10.0;
// The most time a unit's sampled executions take a side (apart): what the sampled instrument costs
// per unit on top of the probed executions (hotloop: ~0.3 s bare executions, ~12 a unit for its 200
// samples).
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
