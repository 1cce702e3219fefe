// The result of `gate run`: what was probed, where, on what machine, and per run and function
// the latency histogram and counters. Serialized as versioned JSON (schema "gate.result").
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/function_name.hpp"
#include "results/histogram.hpp"

namespace gate {

// 2: runs store their functions as columns (schema 1, one object per function and run, still loads).
inline constexpr int kResultSchemaVersion = 2;

// How one declared function is probed (from static analysis of the binary).
struct FunctionInfo {
  uint32_t id = 0;  // index into the BPF statistics map
  std::string name;
  uint64_t address = 0;  // virtual address of the entry
  uint64_t size = 0;
  bool measurable = true;
  std::string not_measurable_reason;  // set when !measurable ("no RET instruction: ends in a tail JMP")
  std::string entry_placement;        // "stack-check-jump" or "first-instruction"
  std::string entry_instruction;      // e.g. "jbe 0x47b04b" or "mov rax, qword ptr [rsp + 8]"
  std::string entry_cost_class;       // "emulated" or "single-stepped" (kernel uprobe handling)
  uint64_t entry_address = 0;         // virtual address of the entry probe
  std::vector<uint64_t> return_addresses;  // virtual addresses of the RET probes
  std::vector<std::string> inlined_at;     // where the compiler inlined it (empty: not known/none)
};

// True-time figures of one function in one run (issue 9): what the probes' calibrated cost
// compensation did. The FunctionRun's calls/sum/min/max/histogram are the compensated times.
struct TrueTimeRun {
  bool present = false;        // false: a result from before true time (raw times only)
  uint64_t raw_sum_ns = 0;     // uncompensated windows (entry clock read to return clock read)
  uint64_t raw_min_ns = 0;
  uint64_t raw_max_ns = 0;
  uint64_t descendants = 0;    // traced calls inside its calls, same goroutine (sum over calls)
  uint64_t self_sum_ns = 0;    // compensated time minus the direct traced children's
  LatencyHistogram self_histogram;
  uint64_t clamped = 0;        // calls whose compensation exceeded the window (recorded as 0)
  uint64_t uncompensated = 0;  // calls compensated for their own bias only (goroutine state lost)
  // Its calls by nearest traced caller on the same goroutine (call graph edges caller -> this).
  struct Caller {
    FunctionName name;
    uint64_t calls = 0;
    uint64_t sum_ns = 0;  // this function's compensated time under that caller
  };
  std::vector<Caller> callers;
};

// One function in one run.
struct FunctionRun {
  FunctionName name;
  uint64_t calls = 0;  // paired entry/return
  uint64_t sum_ns = 0;
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
  LatencyHistogram histogram;
  uint64_t unmatched_entries = 0;  // entries still open when the run ended, or abandoned mid-run
  uint64_t unmatched_returns = 0;  // returns with no recorded entry
  uint64_t diverted_entries = 0;   // morestack restarts seen at the stack-check jump (not calls)
  uint64_t dropped = 0;            // entries lost (pairing map full, unreadable goroutine)
  // When in the run its calls were made (0 in results from before gate kept it): the sums over
  // calls of each entry's moment after the run's start, in 1024 ns units and squared in 2^20 ns
  // units. See calls_moment().
  uint64_t sum_start_us = 0;
  uint64_t sum_start_ms2 = 0;
  // Sampled CPU time (issue 39; RunResult::sample_period_ns > 0 when the run was sampled): the
  // cpu-clock samples of the run whose stack holds this function (inclusive of its callees, and of
  // its inlined copies), those outside gate's own probe handling and those inside it. The first,
  // times the period, is the function's CPU time without the probes; the second over both is its
  // probe share (stats/instrument.hpp).
  uint64_t cpu_samples = 0;
  uint64_t probe_samples = 0;
  // Of cpu_samples, those where no other declared function is deeper on the stack: its CPU time
  // less its declared callees' (they carry verdicts of their own). The sampled test compares this.
  uint64_t self_samples = 0;
  // gate ab's first pair: self_samples of its trial execution without probes (RunResult::
  // trial_executions), where measure: auto reads how many samples the function's executions without
  // probes count: a short function's own CPU time is several times longer in a probed execution
  // (the traps' cache and predictor damage: the shop's pricing.Apply ~1 us a call probed, ~0.1 us
  // bare), so its probed count overstates what the sampled executions will count.
  uint64_t trial_self_samples = 0;
  // Samples this function may have lost to stacks the sampler could not walk to their root (issue
  // 54 item 8; profile/function_samples.hpp FunctionSamples::lost): such stacks holding no declared
  // function whose code was seen under this one in stacks walked whole. An upper bound of what
  // self_samples lacks; RunResult::sampler.not_to_root has every such stack. JSON column
  // "lost_samples"; absent: none (or a result from before).
  uint64_t lost_samples = 0;
  // > 0: this run did not count its calls. calls: auto removed its probes after gate ab's first
  // pair (a workload that made the same calls in every execution, the function measured by
  // samples), and calls is this, the first pair's calls per execution, times the executions.
  uint64_t fixed_calls_per_execution = 0;
  TrueTimeRun true_time;

  double mean_ns() const { return calls ? static_cast<double>(sum_ns) / calls : 0.0; }
  // The mean and standard deviation of its calls' moments in the run, in seconds; false when not
  // known (no calls, or a result from before gate kept them).
  struct Moment {
    double mean_s = 0, sd_s = 0;
  };
  bool calls_moment(Moment& m) const;
  // Interpolated inside its bucket, then clamped to the exact [min, max] seen by the probe.
  double quantile_ns(double q) const {
    const double v = histogram.quantile(q);
    if (calls == 0) return v;
    return std::clamp(v, static_cast<double>(min_ns), static_cast<double>(max_ns));
  }
};

// What the CPU sampler counted over a run's sampled executions, for checking the sampled figures
// against the run's own CPU time (issue 54 item 8). samples x RunResult::sample_period_ns is the CPU
// time the sampler saw the workload use; beside the executions' own (RunResult::cpu_s, or
// sampled_cpu_s when the samples came from sampled executions) it shows a lost share. JSON
// "sampler": {"samples", "no_stack", "not_to_root", "no_caller", "fp_differed"}, written when the
// run was sampled; absent: zeros (a run not sampled, or a result from before).
struct SamplerCounts {
  uint64_t samples = 0;      // every sample of the workload's processes, with a stack or not
  uint64_t no_stack = 0;     // ... with no stack at all (the stacks map full, no user registers)
  uint64_t not_to_root = 0;  // ... whose walk ended before the stack's root (runtime.goexit for a
                             //     goroutine): frames toward the root missing, whole functions maybe
  uint64_t no_caller = 0;    // ... of which the walk found no caller of the leaf at all
  uint64_t fp_differed = 0;  // stacks walked by the binary's pc-to-SP table where the frame pointer
                             //     named another caller or none: what a frame-pointer walk alone
                             //     (the kernel's) would have skipped or lost (none of them lost here)
  SamplerCounts& operator+=(const SamplerCounts& c) {
    samples += c.samples;
    no_stack += c.no_stack;
    not_to_root += c.not_to_root;
    no_caller += c.no_caller;
    fp_differed += c.fp_differed;
    return *this;
  }
};

// One result line of a Go benchmark (`BenchmarkName-8  N  123 ns/op  64 B/op ...`, the format of
// golang.org/x/perf/benchfmt) from one run's workload output, with its metrics in printed order.
struct BenchmarkRun {
  std::string name;          // as printed, GOMAXPROCS suffix included: "BenchmarkCartCheckout-2"
  std::string pkg;           // the `pkg:` configuration line in effect ("" when none)
  uint64_t iterations = 0;   // b.N of the timed call
  std::vector<std::pair<std::string, double>> metrics;  // unit -> value: {"ns/op", 1234}, {"B/op", 64}
  // A unit of several executions (merge_executions): each execution's own value of each metric the
  // unit folds to its fastest or best (time per op, throughput), in the order they ran. The modes
  // across executions are found from them (stats/benchmark_modes.hpp): the fastest execution alone
  // sees only the fast mode of a benchmark whose processes run at one of two speeds. Empty for a run
  // of one execution (its value is the metric's). JSON: the metric's "executions".
  std::vector<std::pair<std::string, std::vector<double>>> executions;
  const std::vector<double>* executions_of(const std::string& unit) const {
    for (const auto& [u, v] : executions)
      if (u == unit) return &v;
    return nullptr;
  }
};

struct RunResult {
  int index = 0;            // 1-based
  std::string variant;      // "" for run/record/check; "base" or "head" for `gate ab`
  int exit_code = 0;        // the workload's exit status (128+signal when killed)
  double duration_s = 0;
  std::string started_at;   // ISO 8601 UTC
  std::vector<FunctionRun> functions;  // same order as ResultFile::functions
  // Go benchmark results read from the workload's stdout (config `benchmarks: go`; empty otherwise),
  // the configuration lines seen (goos, goarch, pkg, cpu, ...), units compared as higher-is-better
  // (throughput ".../s", and units declared by `Unit X better=higher` lines), and lines that looked like results but could not be parsed.
  std::vector<BenchmarkRun> benchmarks;
  std::map<std::string, std::string> benchmark_config;
  std::vector<std::string> benchmark_higher_better;
  std::vector<std::string> benchmark_warnings;
  uint64_t lost_call_edges = 0;        // caller -> callee pairs the kernel could not count (map full)
  // gate ab --slice-ms: this run is one time slice; calls that returned in it but had entered
  // before it (a stop and the other side's slice in their window) were dropped and counted here.
  uint64_t straddled_calls = 0;
  // exclude_preemption: calls whose time had other processes' time taken out, and calls that
  // returned on another thread than they entered on (kept whole: their preemption is unknown).
  uint64_t preempted_calls = 0;
  uint64_t thread_changed_calls = 0;
  // The cgroup's CPU quota during the run (runner/cgroup_cpu.hpp): its enforcement periods and
  // those that ran out of quota (the whole group held until the next), and the time held (summed
  // over CPUs). JSON "cpu_periods", "throttled_periods", "throttled_s", written when throttled.
  uint64_t cpu_periods = 0, throttled_periods = 0;
  double throttled_s = 0;
  // Executions of the workload this run is made of (results/unit_merge.hpp): a unit of k executions is
  // one run in the statistics, its figures taken over all of them. JSON "executions", absent: 1.
  int executions = 1;
  // gate ab with several binaries per side (layout variants of one source): which one this run
  // measured, 0-based in the order given. JSON "layout", absent: -1 (one binary per side).
  int layout = -1;
  // The cpu-clock sampling period of the run's sampled figures (FunctionRun::cpu_samples), in ns;
  // 0: the run was not sampled. JSON "sample_period_ns", absent: 0.
  uint64_t sample_period_ns = 0;
  // The sampler's own counts over the executions the sampled figures come from (SamplerCounts).
  SamplerCounts sampler;
  // Executions of this run made with no probe attached (runner/measure.hpp, benchmarks: go): the
  // benchmark figures come from them only, the function figures from the probed ones. With
  // functions declared a unit alternates the two (probed = clean = executions); a benchmarks-only
  // config runs clean ones only (probed 0). duration_s is the probed executions' wall time (a
  // benchmarks-only run's: the clean ones'), clean_duration_s the clean ones'. JSON
  // "clean_executions", "clean_duration_s", "probed_executions", written when clean_executions > 0;
  // absent: every execution was probed, benchmark figures included (results before issue 39).
  int clean_executions = 0;
  double clean_duration_s = 0;
  int probed_executions = 1;
  // > 0: the sampled figures (FunctionRun::cpu_samples, probe_samples, self_samples) come from this
  // many executions with no probe attached, run beside the probed ones (gate ab, issue 39: a function
  // measured by samples whose own CPU time is a few samples an execution needs more executions than
  // the probed ones can give in a unit's time, since on a VM the probes make an execution many times
  // longer); its calls in them are its calls per probed execution times this. JSON
  // "sampled_executions", "sampled_duration_s"; absent: the samples come from the probed executions.
  int sampled_executions = 0;
  double sampled_duration_s = 0;
  double sampled_cpu_s = -1;  // their CPU time, as cpu_s (< 0: not known); JSON "sampled_cpu_s", absent: -1
  // > 0: this unit ran this many trial executions without probes (gate ab's first pair), their
  // self samples in FunctionRun::trial_self_samples. JSON "trial_executions"; absent: none.
  int trial_executions = 0;
  // CPU seconds (user + system of the workload's process tree, wait4's rusage) of the unit's probed
  // executions, and of its trial executions without probes; < 0: not known (a service's rounds, a
  // result from before issue 54). Not the probes' cost: on a KVM guest the hypervisor's part of a
  // single-stepped trap is neither a task's CPU time nor a guest sample (the shop: 4.81 s of CPU a
  // probed execution of 12.8 s against 4.64 s bare), which is why the cost is measured on its own
  // (RunContext::probe_cost_ns). JSON "cpu_s", "trial_cpu_s"; absent: -1.
  double cpu_s = -1;
  double trial_cpu_s = -1;
  // gate ab's first pair, when calls: auto took probes off after it (issue 39): it measured the
  // functions with probes the later pairs do not have, so a traced caller's latency in it holds its
  // callees' probe hits and the later pairs' do not. It planned the rest, and is left out of every
  // test (without_pilot_pairs, below). JSON "pilot": true; absent: false.
  bool pilot = false;

  const FunctionRun* find(const std::string& name) const {
    for (const auto& f : functions)
      if (f.name == name) return &f;
    return nullptr;
  }
  // The calls of all its functions (a round's or a slice's total: runner/rounds.cpp, sliced.cpp).
  uint64_t total_calls() const {
    uint64_t n = 0;
    for (const auto& f : functions) n += f.calls;
    return n;
  }
};

// One calibrated probe cost: median over interleaved calibration rounds and their range.
struct CostFigure {
  double median_ns = 0;
  double low_ns = 0;   // smallest round
  double high_ns = 0;  // largest round
};

// The probe-cost calibration a result was compensated with (gate/truetime).
struct ProbeCalibration {
  bool present = false;       // false: times are raw (no calibration, or --raw)
  CostFigure entry_jcc_full;  // one hit of the emulated stack-check jump, whole cost
  CostFigure entry_first_full;  // one hit of a single-stepped first instruction
  CostFigure return_full;     // one hit of a single-stepped RET
  CostFigure bias_jcc;        // in-window part of a call's own entry (jump) and return hits
  CostFigure bias_first;      // same, entered on the first instruction
  int rounds = 0;
  std::string measured_at;    // ISO 8601 UTC
  std::string kernel;
  std::string gate_version;
  std::string cache_file;     // where it was read from or written to ("" = not cached)
  bool from_cache = false;
};

// Facts that make two results comparable (or explain why they are not).
struct RunContext {
  std::string binary_path;
  std::string build_id;
  std::string go_version;
  std::string kernel;       // uname -r
  std::string cpu_model;    // /proc/cpuinfo model name
  unsigned cpu_count = 0;
  std::string hostname;
  std::string gate_version;
  std::string config_path;
  std::string config_hash;  // fingerprint of the config file bytes
  std::string attach_mode;  // "uprobe_multi" or "perf_event"
  std::string started_at;
  std::string ended_at;
  // Measured cost of the probes on this host, ns per traced call (an emulated entry hit and a
  // single-stepped return: runner::MeasureOptions::probe_hit_ns, or the calibration's); 0 = unknown.
  double probe_cost_ns = 0;
  ProbeCalibration calibration;
  // Times exclude other processes' preemption of the calls' threads (config exclude_preemption): not
  // comparable with wall times, so compare and check refuse to mix the two.
  bool preemption_excluded = false;
};

// ResultFile::extra's key saying how a unit's benchmark figures fold its executions
// (merge_executions): its value kBenchmarkFoldFastest, written by every result with benchmarks:
// go. Absent: a result written before, whose units hold the executions' mean time per op.
inline constexpr const char* kBenchmarkFoldKey = "benchmark_time_per_op";
inline constexpr const char* kBenchmarkFoldFastest = "the fastest execution of a unit";
// The metric `benchmark_cpu: true` adds to a benchmark: its execution's CPU time per op, in ns.
inline constexpr const char* kCpuNsPerOp = "cpu-ns/op";

struct ResultFile {
  int schema_version = kResultSchemaVersion;
  RunContext context;
  std::vector<FunctionInfo> functions;
  std::vector<RunResult> runs;
  bool partial = false;        // interrupted or failed: never usable as a baseline
  std::string partial_reason;
  std::map<std::string, std::string> extra;  // free-form notes (e.g. "config_name"; kBenchmarkFoldKey)

  const FunctionInfo* find_function(const std::string& name) const {
    for (const auto& f : functions)
      if (f.name == name) return &f;
    return nullptr;
  }
};

// JSON I/O. load_* throws gate::Error naming the file and what is wrong (exit code 2 for
// unreadable/corrupt/wrong schema). save_* writes atomically: temp file in the same directory,
// fsync, rename; on any failure the old file is untouched.
ResultFile load_result_file(const std::string& path);
ResultFile result_from_json_text(const std::string& text, const std::string& origin);
std::string result_to_json_text(const ResultFile& r, int indent = 1);
void save_result_file(const std::string& path, const ResultFile& r);

// A probe calibration alone (the cache file of gate/truetime). from_json throws gate::Error (exit 2).
std::string calibration_to_json_text(const ProbeCalibration& c);
ProbeCalibration calibration_from_json_text(const std::string& text, const std::string& origin);

// Writes bytes to path atomically (temp + fsync + rename). Throws gate::Error.
void write_file_atomically(const std::string& path, const std::string& bytes);

// The unit pairs the tests compare: runs paired by position, a pair left out when either of its
// runs is a pilot (RunResult::pilot). Returns false, and leaves base and head empty, when no run is
// a pilot (then the callers use the runs they have, no copy made).
bool without_pilot_pairs(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                         std::vector<RunResult>& base, std::vector<RunResult>& head);

}  // namespace gate
