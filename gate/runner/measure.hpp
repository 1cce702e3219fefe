// Measuring shared by run/record/check/ab: build (once), analyse the binary, attach, run the
// workload as many times as asked (more can be added later: adaptive re-runs, interleaved A/B),
// and assemble a ResultFile. A failure or interruption keeps what was measured, marked partial; a
// run that timed no call of any declared function is a failed run (runner/coverage.hpp).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common/error.hpp"
#include "runner/config.hpp"
#include "runner/session.hpp"

namespace gate::runner {

struct MeasureOptions {
  int runs = 0;  // 0 = the config's
  bool skip_build = false;
  std::string binary_override;  // measure this binary instead of the config's
  std::string variant;          // "" or "base"/"head" (labels runs and output files)
  analysis::EntryPolicy entry = analysis::EntryPolicy::kAuto;
  SessionOptions session;
  // Attach the probes afresh (new BPF maps, new kernel uprobe objects) before every run, when the
  // attach is cheap (uprobe_multi). Why: some costs are fixed for as long as one attach lives and
  // differ from one attach to the next; measured in gate ab A/A on the shop example, a ~0.9 us
  // function read +14%, then +0%, then +9% head/base in three gate invocations, steady within each
  // (every one of 30 pairs within +-0.1). Replicating runs alone never sees that level of
  // variance, so it becomes a false regression once the run-to-run noise is taken out; one attach
  // per run turns it into run-to-run noise, which the statistics do see.
  bool reattach_each_run = true;
  // Probe a fresh copy of the binary (a new inode) in every run. Why: two byte-identical copies
  // of one binary measured side by side (gate ab A/A) differ steadily by up to 14% on ~1 us
  // functions, for as long as the files live, while one file on both sides shows no offset
  // (tests/bench/noise_lab.py). The cause is tied to the inode (kernel objects keyed by it), so a
  // new copy per run makes it run-to-run noise. Only when gate knows the workload starts the
  // binary it probes: the command's program is the binary, or the command uses $GATE_BINARY.
  // The copy is TMPDIR/gate-binary-*/run-N/DIR/NAME for the original .../DIR/NAME; workloads get
  // GATE_BINARY (the copy), GATE_BINARY_ORIGINAL (the original) and GATE_SIDE (base, head or "").
  bool fresh_copy_each_run = true;
  // Exclude other processes' preemption (probe engine option): the command line's choice; unset:
  // the config's, else preemption_default (runner::exclude_preemption). Sets
  // session.engine.exclude_preemption when measuring.
  std::optional<bool> exclude_preemption;
  bool preemption_default = kExcludePreemptionByDefault;
  // Probe costs to compensate (gate/truetime); absent: raw times. Recorded in the result.
  ProbeCalibration calibration;
  // What one traced call's probes cost on this host now (an emulated entry hit and a single-stepped
  // return hit, measured when the command starts: doctor::measure_probe_cost), in ns; 0: not
  // measured. Recorded as context.probe_cost_ns (without a calibration): each function's window
  // probe share is read from it (stats::window_facts, issue 54).
  double probe_hit_ns = 0;
  // Executions of the workload per measured unit (results/unit_merge.hpp): run() makes each run of
  // this many executions; execute()/close_unit() let a caller (gate ab) interleave them.
  int executions_per_unit = 1;
  // > 0: run() plans the executions per unit itself from its first execution's duration
  // (runner/unit_size.hpp), unless executions_per_unit is above 1 already (gate run/record with the
  // config's min_unit_seconds; gate ab plans both sides at once instead).
  double min_unit_seconds = 0;
  // gate ab with several binaries per side: which layout variant this Measurer measures (-1: the
  // only one). Recorded in every run; logged beside the side's name.
  int layout = -1;
};

struct Measurement {
  ResultFile result;
  std::optional<Error> failure;  // set => result.partial
};

// Runs the config's build command; throws gate::Error (exit 3) with the output tail on failure.
void run_build(const Config& cfg, const std::function<void(const std::string&)>& log, SignalWatch* signals);

// One attached target whose runs accumulate into a ResultFile.
class Measurer {
 public:
  // Analyses and attaches (no build). Throws gate::Error.
  Measurer(const Config& cfg, const MeasureOptions& opts);
  ~Measurer();

  // Runs `count` more runs. False once a run failed or gate was interrupted (see failure()):
  // the failed run is not added, earlier ones are kept, and the result is marked partial.
  bool run(int count, SignalWatch* signals);
  // Units one execution at a time: execute() runs one execution of the workload into the unit
  // being measured (the probes are attached afresh before a unit's first execution, as before a
  // run); close_unit() merges the unit's executions into one run and adds it. False once a run
  // failed (the open unit is then dropped). run() is k x execute() and close_unit().
  bool execute(SignalWatch* signals);
  bool close_unit();
  int executions_in_unit() const { return static_cast<int>(open_unit_.size()); }
  // The duration of the last execution (0 before the first).
  double last_execution_seconds() const { return last_execution_s_; }
  // `calls: entry` from the next unit on (issue 39): these functions keep an entry probe that counts
  // calls and lose their return probes; their time is sampled. Re-attaches before the next unit.
  void count_calls_only(const std::set<std::string>& functions);
  // calls: auto on a workload that makes the same calls every execution (issue 39): these functions
  // lose every probe from the next unit on; each execution is given the calls per execution here
  // (the first pair's), and their time is sampled. Where removing them would leave no probe at all,
  // they count calls with their entry probe instead (count_calls_only).
  void stop_probing(const std::map<std::string, uint64_t>& calls_per_execution);
  // Sampled executions (issue 39): from the next unit on, each unit also runs executions with no
  // probe attached whose CPU samples replace the probed executions' sampled figures
  // (RunResult::sampled_executions); the probed ones keep the latencies and the call counts.
  // execute_sampled() runs one into the open unit (after its probed executions); the schedule
  // decides how many (sampled_per_unit). Possible only where executions run copies of the binary
  // (can_sample_apart): else each would detach and attach every probe.
  bool can_sample_apart() const { return !copy_dir_.empty() && !cfg_.service; }
  void set_sampled_per_unit(int n) { sampled_per_unit_ = n < 0 ? 0 : n; }
  int sampled_per_unit() const { return sampled_per_unit_; }
  // keep false: a trial, to time a bare execution (last_sampled_seconds); its samples are dropped.
  bool execute_sampled(SignalWatch* signals, bool keep = true);
  double last_sampled_seconds() const { return last_sampled_s_; }
  void set_executions_per_unit(int k) { opts_.executions_per_unit = k < 1 ? 1 : k; }
  int executions_per_unit() const { return opts_.executions_per_unit; }
  // Runs that are measured and thrown away (caches, JIT-like warm-up of the service).
  bool warm_up(int count, SignalWatch* signals);
  bool failed() const { return m_.failure.has_value(); }
  const std::optional<Error>& failure() const { return m_.failure; }
  const ResultFile& result() const { return m_.result; }
  int runs_done() const { return static_cast<int>(m_.result.runs.size()); }
  // Detaches the probes and returns the measurement.
  Measurement finish();

  // Time slicing (runner/sliced.hpp) drives the session itself. session_for_round: the session
  // for the next round, attached afresh on a fresh copy of the binary as before a run (round 1:
  // the one attached in the constructor). add_units: a round's paired slices, as runs. fail: a
  // round failed; the result is then partial, as after a failed run.
  RunSession& session_for_round();
  int rounds_started() const { return rounds_; }
  void add_units(std::vector<RunResult> units);
  void fail(const Error& e);
  const MeasureOptions& options() const { return opts_; }
  ResultFile& mutable_result() { return m_.result; }

 private:
  // An execution of the open unit failed: the unit's executions are dropped (a failed unit is never
  // compared), the result is partial. Returns false.
  bool fail_unit(const Error& e);
  void reattach(int copy_index);
  int rounds_ = 0;
  bool replanned_ = false;  // count_calls_only changed the plan: re-attach before the next unit
  std::map<std::string, uint64_t> fixed_calls_;  // stop_probing: calls per execution, not counted
  int sampled_per_unit_ = 0;
  double last_sampled_s_ = 0;
  std::vector<RunResult> open_sampled_;  // the open unit's sampled executions (execute_sampled)
  std::vector<RunResult> open_trial_;    // its trial executions (execute_sampled, keep false)
  bool clean_sampled_ = false;           // clean_ is tracked by the CPU sampler
  const Config& cfg_;
  MeasureOptions opts_;
  plan::ProbePlan target_;
  std::string original_binary_;
  std::string copy_dir_;  // fresh copies live here ("" when not copying)
  std::unique_ptr<RunSession> session_;
  void use_fresh_copy(int run);
  std::string who() const;
  Measurement m_;
  std::vector<RunResult> open_unit_;  // executions of the unit being measured
  double last_execution_s_ = 0;
  // Clean executions (benchmarks: go with functions declared; runner/benchmark_results.hpp): after each
  // probed execution, one with no probe attached, whose benchmark figures the unit keeps. They run
  // a copy of the binary no probe is attached to (a fresh one per unit); where gate cannot make
  // the workload run a copy, the probes are detached for them instead. A benchmarks-only config
  // has no probed execution: session_ itself is clean.
  std::unique_ptr<RunSession> clean_;
  std::string clean_binary_;
  std::vector<RunResult> open_clean_;
  RunResult run_clean(int unit, const std::string& name, SignalWatch* signals, bool sampled = false);
};

// The side a run's CPU samples belong to (profile::ProfileRecorder): its variant ("", "base",
// "head", "warmup"), and "@K" for layout variant K of gate ab.
std::string sample_label(const std::string& variant, int layout);

// Build + Measurer + runs + finish.
Measurement measure(const Config& cfg, const MeasureOptions& opts, SignalWatch* signals);

}  // namespace gate::runner
