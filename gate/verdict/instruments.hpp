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
void judge_instruments(stats::Comparison& c, const std::vector<RunResult>& base_runs,
                       const std::vector<RunResult>& head_runs, const stats::CompareOptions& o);

// The functions `calls: auto` switches to counting calls only (runner::Measurer::count_calls_only)
// after gate ab's first pair: those the sampled instrument measures, chosen from that pair, whose
// probes still time them. Why: their return probes are the costly ones (single-stepped) and are no
// longer read once samples measure them; dropping them makes the run shorter and takes their cost
// out of every traced caller's window.
std::vector<std::string> entry_counted_after_first_pair(const runner::Config& cfg, const std::vector<RunResult>& base_runs,
                                                        const std::vector<RunResult>& head_runs,
                                                        const stats::CompareOptions& o);

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

// A schedule that calls `after_first` once, when its first round (pair) is done.
class AfterFirstRound : public Schedule {
 public:
  AfterFirstRound(Schedule& inner, std::function<void()> after_first)
      : inner_(inner), after_first_(std::move(after_first)) {}
  bool add_rounds(int rounds) override;
  int rounds_done() const override { return inner_.rounds_done(); }
  bool failed() const override { return inner_.failed(); }
  std::string round_name() const override { return inner_.round_name(); }

 private:
  Schedule& inner_;
  std::function<void()> after_first_;
  bool done_ = false;
};

}  // namespace gate::verdict
