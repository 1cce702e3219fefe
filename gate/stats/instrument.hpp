// How a function is measured (issues 39, 54): its probes (latency quantiles per call), CPU samples
// (its CPU time per call, without gate's probes), or both; the window figures that say how far each
// can speak for the code, and the sampled instrument's test. Values only: explain/ and report/ say
// it in words.
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
// kBoth (measure: auto, issue 54): its latency tests and its sampled test judge it together
// (stats::function_verdict).
enum class Instrument : uint8_t { kProbes, kSamples, kBoth };
std::string_view to_string(Instrument i);  // "probes", "samples", "probes+samples"

// The config's `measure:`: auto judges a function by both instruments (issue 54), probes and
// samples by one alone.
enum class MeasureSetting : uint8_t { kAuto, kProbes, kSamples };
MeasureSetting parse_measure_setting(const std::string& s);  // throws gate::Error (exit 2)
std::string_view to_string(MeasureSetting m);

// What gate's probes cost one traced call here, as the runs' result files recorded it
// (RunContext::probe_cost_ns: an emulated entry hit and a single-stepped return hit, measured when
// the command started, or the calibration's); the mean of the sides that have it, NaN when neither.
// Why measured per command: the same machine kind's probe hit costs ~10x more on one host than on
// another, and swings with its load.
double probe_cost_per_call(const ResultFile& base_meta, const ResultFile& head_meta);

// What the window figures of a function say (issue 54), from the units they are read in (the pilot
// pair of gate ab, else each side's first unit), pooled over both sides:
struct WindowFacts {
  bool timed = false;            // its probes timed calls there (not `calls: entry`)
  bool sampled = false;          // those units were sampled
  double window_ns = 0;          // its median raw window a call (entry clock to return clock)
  double descendants = 0;        // traced calls inside a call's window, same goroutine (all depths)
  // The share of the window that is gate's own probes: (descendants + 1/2) x probe cost / window,
  // at most 1 (the 1/2: the part of its own entry and return hits inside its own window); NaN
  // without a probe cost.
  double probe_share = std::numeric_limits<double>::quiet_NaN();
  double probe_ns = std::numeric_limits<double>::quiet_NaN();  // that share of the window, a call
  // Its CPU time per call by samples, callees included and gate's probe handling left out, and the
  // share of its window without probes that this is (NaN when not sampled or no probe cost).
  double cpu_ns = 0;
  double on_cpu = std::numeric_limits<double>::quiet_NaN();
  double sample_probe_share = -1;  // the probes' share of its samples (-1: not sampled), as gate run prints
};
WindowFacts window_facts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                         const std::string& function, double probe_cost_ns);

struct WindowRule {
  // A function waits (I/O, locks, channels, sleeps: time only the probes see) when the share of
  // its window without probes spent on CPU is below min_on_cpu, or below min_on_cpu_relative of the
  // busiest declared function's (reference_on_cpu: the workload's main path, which a loaded host's
  // preemption stretches alike), whichever is larger.
  double min_on_cpu = 0.1;
  double min_on_cpu_relative = 0.5;
  double reference_on_cpu = 0;
  // The probe cost a call swings by this much between moments on a VM (a single-stepped return
  // read 4.1-6.8 us, an entry 1.0-1.8 us, in calibrations minutes apart: docs/how-it-measures.md,
  // "True time"): a function is said to wait only if it does with its probe time taken this much
  // smaller, so that a window all but ~1 us probes (the shop's pricing.Apply: ~55 us, ~0.3 us of it
  // its own CPU) is not called waiting for the leftover of an estimate.
  double probe_cost_uncertainty = 0.3;
  // A sampled CPU time per call above this many times the window is impossible (a call's CPU on
  // its own stack cannot outlast its window): the samples are mis-attributed, never used.
  double max_cpu_over_window = 1.5;
  // Sampled executions are sized for functions whose window is at least this share probes (their
  // latency speaks for the code less: a change x reads x (1 - share), and its unchanged band
  // narrows so): their samples then come from executions without probes, enough of them.
  double sampled_share = 0.3;
};

// The on_cpu of the declared function with the most samples among those timed, with a probe share
// known and at least `min_samples` samples in the units read; 0 when none qualifies.
double reference_on_cpu(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                        double probe_cost_ns, uint64_t min_samples = 100);

bool waits(const WindowFacts& f, const WindowRule& rule);
// The sampled figure is ruled out by the windows (max_cpu_over_window).
bool sampled_figure_ruled_out(const WindowFacts& f, const WindowRule& rule);

// The per-side sample counts the sampled executions are sized from: each side's self samples an
// execution without probes (the trial's where the unit ran one, else its own), for gate ab's units.
struct SampleCounts {
  double per_execution[2] = {0, 0};
  bool counted[2] = {false, false};
  double least() const;  // the sparser side's (a test is no more precise than it)
};
SampleCounts sample_counts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                           const std::string& function);

// The units the instrument facts are read in: the pilot units when there are (gate ab's first pair),
// else each side's first unit.
std::vector<const RunResult*> fact_units(const std::vector<RunResult>& runs);

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
  double calls = 0;  // the calls its samples came from (sampled executions: scaled, as sampled_ns_per_call)
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

// Below this many samples a unit on its sparser side, by the counts of the units the facts are read
// in (the pilot's), the sampled test pools the counts (pooled_count_ratio; QuantileComparison::
// pooled, which the report notes). Why 20: the log of a Poisson count of mean m is biased low by
// ~1/(2m) (half a sample added takes most of it out), and below ~20 a unit's log is too coarse.
inline constexpr double kSparseSamplesPerUnit = 20;

// The sampled instrument's test of one function: per run its CPU time per call, each divided by
// the run's speed factor when `speed` is usable, compared as the latencies are (paired t in gate ab,
// the run-level bootstrap against a baseline), each unit's count with half a sample added. Sparse
// counts are pooled instead (pooled_count_ratio, the sparser side's small-count bias taken out). A
// side that counted no sample in any unit, the other some, gets the exact test of the two counts
// (stats/exact_counts.hpp; QuantileComparison::exact), so that a function going from nothing to a
// lot is flagged past its band (issue 54). Which test is decided from the pilot's counts, never the
// tested units': at the band's edge the one-sided false-regression rate is then ~ its level
// (tests/stats/pooled_edge_sim, docs/how-it-decides.md). The test is named "cpu/call".
// fact_base/fact_head (optional): the runs with the pilot pair, whose counts decide whether the
// counts are sparse (else base_runs/head_runs' first units).
QuantileComparison sampled_test(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                const std::string& function, const CompareOptions& o, bool paired,
                                const SpeedFactors& speed, const std::vector<RunResult>* fact_base = nullptr,
                                const std::vector<RunResult>* fact_head = nullptr);

inline constexpr const char* kSampledTestName = "cpu/call";

}  // namespace gate::stats
