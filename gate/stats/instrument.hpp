// Which instrument measures a function (issue 39): its probes (latency quantiles per call) or CPU
// samples (its CPU time per call, without gate's probes), and the sampled instrument's test.
// Values only: explain/ and report/ say it in words.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "results/result.hpp"
#include "stats/bootstrap.hpp"
#include "stats/compare.hpp"
#include "stats/speed.hpp"

namespace gate::stats {

// Why: on CI VMs a probe hit costs 6-22 us (a Go `ret` is single-stepped, and the hypervisor
// intercepts the trap), so a function of a few microseconds reads mostly probe time, and every
// traced caller carries its callees' probes: a real change in its own code drowns (issue 39 measured
// a 13% slowdown read as 1.02x). cpu-clock samples whose stack holds the function, leaving out the
// ones inside gate's probe handling, are its CPU time without the probes.
enum class Instrument : uint8_t { kProbes, kSamples };
std::string_view to_string(Instrument i);  // "probes", "samples"

// The config's `measure:`: auto chooses per function from the first pair (choose_instrument).
enum class MeasureSetting : uint8_t { kAuto, kProbes, kSamples };
MeasureSetting parse_measure_setting(const std::string& s);  // throws gate::Error (exit 2)
std::string_view to_string(MeasureSetting m);

// What the first units say of a function, for the choice.
struct InstrumentFacts {
  bool sampled = false;       // both sides' first units were sampled
  double probe_share = 0;     // probe samples / all samples whose stack holds it (pooled)
  double on_cpu = 0;          // its sampled CPU time (probes included) / its probed time: < 1 waits
  double samples_per_unit = 0;  // its self samples (stats::sampled_ns_per_call), mean over those units
  // Self samples an execution: the trial executions' without probes where those units ran one
  // (RunResult::trial_executions: gate ab's first pair), else those units' own over their executions.
  double samples_per_execution = 0;
  bool latency_timed = false;   // its probes timed calls (not `calls: entry`)
  // Per side (base, head) of those units: self samples an execution, and the counts and calls
  // (the trial's where there was one, as samples_per_execution), from which the ratio the samples
  // read there (head / base, per call).
  double side_samples_per_execution[2] = {0, 0};
  int side_executions[2] = {0, 0};  // the executions those counts came from
  uint64_t side_samples[2] = {0, 0};
  uint64_t side_calls[2] = {0, 0};
};

// The first units' sampled ratio (head / base CPU per call), for the log; NaN when a side has no
// sample or no call (sds_beyond_band still reads such a pair).
double first_pair_ratio(const InstrumentFacts& f);

struct InstrumentRule {
  // Probes dominate above this share of the function's sampled time (issue 39: "e.g. > 20%").
  double max_probe_share = 0.2;
  // A function waits (I/O, locks, channels, sleep: time only the probes see) when its share of its
  // probed time on CPU is below min_on_cpu_relative of the busiest declared function's in the
  // same units (on_cpu_reference), or below min_on_cpu at all. Relative, because a CPU-bound
  // function on a loaded runner is off CPU (runnable, preempted) for most of its probed time: at
  // load 10 on 2 vCPUs the shop's pricing.Apply read on_cpu 0.12-0.17 and an absolute floor of 0.2
  // sent it to probes in 6 of 10 pre-merge tries (tests/bench/pre_merge_scenario.sh), where the
  // preemption and the probes' traps hit every CPU-bound function alike. The absolute floor covers a config whose
  // every function waits.
  double min_on_cpu = 0.05;
  double min_on_cpu_relative = 0.4;
  double on_cpu_reference = 0;  // on_cpu_reference() of the units the facts came from; 0: none
  // Fewer samples a unit than this (on the sparser side: samples_per_unit) leave it on probes. Below ~100 a unit's count is as noisy as
  // binomial (hotloop's A/A, tests/bench/results/sampled_units.txt: 14, 28 and 52 samples a unit
  // gave 49%, 20% and 19% per pair, where probes gave 3-11%), and a handful of samples (the
  // shop's pricing.Apply: 7-30) read an A/A as 1.86x once: too coarse for a 5-10% band.
  double min_samples_per_unit = 100;
  // The executions a unit has (or will have) where the function is judged: its samples a unit are
  // then samples_per_execution times this. 0: the first units' own (InstrumentFacts::samples_per_unit).
  int planned_executions = 0;
  // gate ab grows its units for a function short of samples (sample_sized_executions) to this many
  // samples a unit, more than the floor: at 100 a unit's count alone is ~10% noise (binomial), 14%
  // per pair; at 200, 7% and 10%.
  double target_samples_per_unit = 200;
  // Samples also measure a function whose first pair already reads, by samples, a change far beyond
  // the band, whatever its count (below the floor) and its on-CPU share: the first pair's counts
  // put the band's edge more than decisive_sds beyond them (sds_beyond_band: an exact binomial
  // test, so a side that counted none still reads), its probes dominate it, and its sparser side
  // will count at least min_samples_decisive samples over decisive_pairs pairs (the test pools
  // sparse counts: sampled_test; a change this far beyond the band is decided from a handful: 5
  // base samples against 250 give the pooled log ratio an sd of ~0.45, and issue 34's branch, ~50x,
  // keeps a lower bound far above any band).
  // Why: on a VM a short function's probed window is mostly its callees' probe traps that no
  // sample sees (the shop's pricing.Apply: on-CPU 0.21-0.27 of it, against 0.69 for the workload's
  // main path: below the relative floor, so "it waits"), and its probes (Apply: 80-120 us a call)
  // read a large change in its own code as a small one (issue 34's 2,000-step loop, 6-9x Apply's
  // CPU by samples of probed executions and 35-65x without probes, read 1.07-1.11x: inconclusive at
  // a 10% band; tests/bench/results/pre_merge-auto-*.txt). A change the samples show this clearly
  // is a change in its CPU time, whatever else it waits for. (Apply itself no longer qualifies
  // since the counts come from the trial execution: ~1 sample a bare execution at base.)
  // The choice may look at the first pair's reading because gate ab then leaves that pair out of
  // every test (RunResult::pilot): the pairs that decide are independent of it, so choosing by it
  // biases no test.
  double decisive_sds = 3;
  double min_samples_decisive = 5;
  int decisive_pairs = 5;  // the fewest pairs a test takes (CompareOptions::min_runs)
};

// The decisive case above: the function's probes dominate it, its first pair reads a change beyond
// `band` (its cpu/call band: above 1 + regression or below 1 - improvement) by more than
// rule.decisive_sds (sds_beyond_band), and its planned units would count at least
// rule.min_samples_decisive samples on each side over rule.decisive_pairs pairs.
bool decisive_first_pair(const InstrumentFacts& f, const InstrumentRule& rule, const Band& band);

// How far the first pair's counts lie beyond the band's nearer edge: given both sides' count n, the
// head's is binomial; at the edge its share of n is edge x head calls / (base calls + edge x head
// calls), and the tail beyond the observed count is said as a normal z (p 0.00135: 3; at most 40).
// Negative inside the band; NaN without a sample or a call. Exact for small counts, and a side
// that counted none (the shop's pricing.Apply at base: ~1 sample a bare execution, none in 37% of
// executions) still reads, where a ratio of counts has none.
double sds_beyond_band(const InstrumentFacts& f, const Band& band);

// The sparser side's self samples an execution (InstrumentFacts::side_samples_per_execution), or
// the pooled figure when a side has no call. Why the sparser side: a test can be no more precise
// than its sparser side's count (the shop's pricing.Apply at issue 34's branch counted ~1 sample a
// bare execution at base, ~66 at head: pooled 33.5 reached the floor where the base never would).
double least_samples_per_execution(const InstrumentFacts& f);

// Its samples a unit under the rule, on its sparser side: least_samples_per_execution x
// rule.planned_executions when planned, else the first units' samples_per_unit scaled to it.
double samples_per_unit(const InstrumentFacts& f, const InstrumentRule& rule);

// auto would choose samples for this function if its units had enough samples: it is sampled, its
// probes time calls, dominate it (probe share above the rule's) and it does not wait, or its first
// pair is decisive at `band` but for the count (given a band). Then the executions a unit needs for
// rule.target_samples_per_unit (at least 1); 0 otherwise (auto picks probes whatever the unit's
// length, or samples already, or it has no sample to count from).
int executions_for_samples(const InstrumentFacts& f, const InstrumentRule& rule, const Band* band = nullptr);

// The per-side count of decisive_first_pair: the smaller side's samples in the planned units, each
// side's rate estimated as (its count + 0.5) / its executions (Jeffreys' estimate of a Poisson
// rate): a trial execution that counted none says the rate is small, not zero (the shop's
// pricing.Apply at base counts 1-6 samples a bare execution, and none in some).
double smaller_side_samples_per_unit(const InstrumentFacts& f, const InstrumentRule& rule);


// The facts from the first unit of each side (gate ab's first pair; check: the baseline's first
// run and the head's). Units without sampling give sampled = false.
InstrumentFacts instrument_facts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                 const std::string& function);

// The on_cpu (capped at 1) of the busiest declared function: the most samples whose stack holds it
// in both sides' first units, among the functions the probes timed, with at least
// rule.min_samples_per_unit samples a unit. How much of its probed time the workload's main path
// got on CPU there. Not the highest on_cpu: a function much shorter than a probe hit reads on_cpu
// above 1 (probe handling outside its window lands in its samples), and one with single-stepped
// probes inside its window reads low on a VM (the hypervisor's share of a trap is no guest CPU
// time): the shop's pricing.Apply read 0.12-0.17 at load 10, its main path (*Cart).Checkout
// 0.19-0.23. 0 when nothing qualifies.
double on_cpu_reference(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                        const InstrumentRule& rule);

// auto: samples when the function is sampled, probes dominate it, it does not wait and it has
// enough samples; or when decisive_first_pair at `band` (its cpu/call band); or when its probes
// time nothing (`calls: entry`). A fixed setting stands. No band: no decisive case (one side
// only: gate run).
Instrument choose_instrument(MeasureSetting setting, const InstrumentFacts& f, const InstrumentRule& rule,
                             const Band* band = nullptr);

// The executions a unit's samples come from: its sampled executions when it has them
// (RunResult::sampled_executions), else its executions.
inline int sampled_executions_of(const RunResult& r) {
  return r.sampled_executions > 0 ? r.sampled_executions : (r.executions > 0 ? r.executions : 1);
}

// The per-run value of the sampled instrument: CPU ns per call (self samples x period / calls): the
// function's CPU time, and its callees' that are not declared, without gate's probes; declared
// callees are left out, as they have verdicts of their own (a slowed callee does not flag every
// declared caller). NaN when the run was not sampled, has no calls or no sample of the function.
double sampled_ns_per_call(const RunResult& run, const FunctionRun& f);

// One unit of the sampled instrument: its CPU time per call (0 when it counted no sample of the
// function), its speed factor's log (stats/speed.hpp: the value is divided by exp of it; 0: none),
// the samples behind it, and its run index (pairs match by it).
struct CountedUnit {
  size_t run = 0;
  double ns_per_call = 0;
  double log_offset = 0;
  uint64_t samples = 0;
  double value() const;  // ns_per_call / exp(log_offset)
};

// The sampled test for sparse counts: the ratio of the sides' mean per-unit values (head / base), so
// that a unit that counted no sample weighs as the zero it is (a log per unit cannot take it, and
// leaving such units out reads the sparse side high: the shop's pricing.Apply, ~1 sample a bare
// execution at base, read 35-65x where a handful of base units counted none). Its interval: the log
// ratio's linearized variance over the units (paired: per pair h/H - b/B, so the pairs' shared
// speed swings cancel; else each side's own), a Student t with units - 1 degrees of freedom
// (paired; Welch's otherwise). The spread across units holds the counting noise and the
// overdispersion (speed swings, which calls a unit made); its sd is never below half the counts'
// Poisson sd (sqrt(1/sum b + 1/sum h) / 2), so that a spread implausibly small for its counts
// (units alike by chance) cannot make a narrow interval. Simulated A/As (0.5-20 samples a unit,
// 5-20 pairs, 1.4x speed spells, 20% overdispersion: tests/bench/pooled_counts_sim.py) excluded 1
// from the 95% interval in 0.6-5.9% of cases (tests: PooledCounts.*). No winsorizing: a unit of a few samples has no outlier to clip. A ratio of 0 (no interval) when a side counted no sample
// at all; *units receives the pairs (or the smaller side's units) used.
RatioInterval pooled_count_ratio(const std::vector<CountedUnit>& base, const std::vector<CountedUnit>& head,
                                 double confidence, bool paired, int* units);

// Below this many samples a unit on its sparser side (mean over the units), or with any unit that
// counted none, sampled_test pools the counts (pooled_count_ratio). Why 20: the log of a Poisson
// count of mean m is biased low by ~1/(2m), 2.5% at 20, and the bias differs between sides whose
// counts differ: above 20 the per-unit log (winsorized, speed-fitted) is the better test.
inline constexpr double kSparseSamplesPerUnit = 20;

// The sampled instrument's test of one function: per run its CPU time per call, each divided by
// the run's speed factor when `speed` is usable, compared as the latencies are (paired t in gate ab,
// the run-level bootstrap against a baseline). The sampling error is part of each unit's value, so
// the run-to-run variance the interval rests on includes it. Sparse counts (kSparseSamplesPerUnit)
// are pooled instead (pooled_count_ratio; QuantileComparison::pooled). The test is named "cpu/call".
QuantileComparison sampled_test(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                const std::string& function, const CompareOptions& o, bool paired,
                                const SpeedFactors& speed);

inline constexpr const char* kSampledTestName = "cpu/call";

}  // namespace gate::stats
