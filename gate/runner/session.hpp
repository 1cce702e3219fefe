// RunSession: one attached probe target plus the workload of a config, run as many times as
// asked. Each run gives a RunResult; a failed run throws gate::Error (exit 3) with the tail of
// the failing process's stderr, or naming the process that holds a service's ready_tcp.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "common/clock.hpp"
#include "probe/probe_engine.hpp"
#include "results/result.hpp"
#include "runner/cgroup_cpu.hpp"
#include "runner/config.hpp"
#include "runner/process.hpp"
#include "runner/run_as.hpp"
#include "plan/probe_plan.hpp"
#include "results/run_notes.hpp"

namespace gate::runner {

struct SessionOptions {
  probe::EngineOptions engine;
  std::string keep_output_dir;  // keep each run's stdout/stderr here ("" = temporary, removed)
  std::function<void(const std::string&)> log;  // progress lines ("" = silent)
  // A service round off in calls (rounds.hpp), as its unit closes: the CLI logs it as a warning
  // (explain::round_calls words it; runner/ words no notes).
  std::function<void(const RoundCalls&)> on_round_calls;
  std::map<std::string, std::string> extra_env;  // added to the config's env for every process
  // Called with every process the probes track, before it runs, and the run's variant ("",
  // "base", "head"): the CPU profiler (gate/profile) follows the same processes.
  std::function<void(pid_t, const std::string&)> on_tracked;
  // Called with every execution's RunResult as the Measurer collects it (warm-ups included), before
  // it joins a unit: the sampled instrument (gate/profile) adds each function's CPU samples of the
  // execution (FunctionRun::cpu_samples), and drains its maps, here.
  std::function<void(RunResult&)> on_collected;
  // Called with the variant when a service's measured load round is about to start (rounds.cpp):
  // what was sampled before it (start-up, warm-up rounds, idle time) is dropped, as the probes' is.
  std::function<void(const std::string&)> on_measure_start;
  // Called with true before a run that nothing samples (a clean execution read for its benchmarks)
  // and with false after it: the CPU sampler pauses its per-CPU interrupts, which would otherwise
  // slow that run too (gate/profile/sampler.hpp).
  std::function<void(bool)> pause_sampling;
  // A clean session: no probe engine (no BPF loaded, nothing attached or tracked); its runs have
  // no function figures. Go benchmarks are read from such runs (runner/measure.hpp).
  bool clean = false;
};

class RunSession {
 public:
  RunSession(const Config& cfg, const plan::ProbePlan& target, const SessionOptions& opts);
  ~RunSession();

  // One run of the workload (or service + load). `variant` labels it ("base"/"head" in ab).
  RunResult run_once(int index, const std::string& variant, SignalWatch* signals);

  // Time slicing (runner/sliced.hpp), one workload run cut into slices: start_sliced spawns it
  // stopped and tracked; run_slice lets it run for up to `seconds` (true: it exited meanwhile, with
  // status 0; throws gate::Error on a failure, the config's timeout over its slices, or a signal);
  // end_slice stops it (while alive) and returns the slice's statistics as a RunResult.
  // run_to_end lets it finish alone and returns what it measured meanwhile.
  // A service config is sliced as a pair: the service is started (not stopped) and must come up
  // (ready_tcp) first, then it is paused and its start-up's statistics are dropped; each slice
  // resumes the service and then its load driver (started stopped, not probed), and pauses the
  // load and then the service. The round ends when the load ends; the service is then stopped.
  void start_sliced(int round, const std::string& variant, SignalWatch* signals = nullptr);
  bool run_slice(double seconds, SignalWatch* signals);
  RunResult end_slice(int index);
  RunResult run_to_end(int index, SignalWatch* signals);
  void stop_sliced();  // kills a sliced workload still running (an error elsewhere)

  // Rounds of a service (runner/rounds.hpp; defined in rounds.cpp). run_round: round `round` of
  // `rounds` of unit `unit`: the first round of a unit (or one after end_rounds) starts the service
  // (tracked, ready_tcp checked) and drives service.warmup_rounds load rounds unmeasured; every
  // round then drops the statistics so far (start-up, warm-up, the idle time between rounds), runs
  // the load once, and returns only that round's statistics. The service stays up between rounds.
  // Throws gate::Error (exit 3) naming the unit and round on a failure, the service then stopped.
  RunResult run_round(int unit, int round, int rounds, const std::string& variant, SignalWatch* signals);
  // Stops the unit's service (service.stop_signal) and drops its shut-down's statistics.
  void end_rounds();

  probe::ProbeEngine& engine() { return *engine_; }  // only when probed()
  bool probed() const { return engine_ != nullptr; }
  const plan::ProbePlan& target() const { return target_; }
  // Path of the last run's stdout file (valid until the next run).
  const std::string& last_stdout() const { return last_stdout_; }
  // The last workload execution's CPU seconds (Child::cpu_seconds); -1 for a service's rounds.
  double last_cpu_seconds() const { return last_cpu_s_; }
  // Who the workload, the service and the load driver run as (runner/run_as.hpp).
  const RunAs& run_as() const { return run_as_; }

 private:
  struct RunFiles {
    int index;
    std::string variant;
    std::string out, err;  // the probed process's output files
    std::string label;     // "run 3 (head)", for errors
  };
  void track(pid_t pid, const std::string& variant);  // the probes, then on_tracked
  // The last tracked process and the engine's followed() count before it: collect() throws when
  // the BPF side never followed it (require_followed).
  std::optional<std::pair<pid_t, uint64_t>> awaiting_;
  void require_followed();
  void run_workload(const RunFiles& f, SignalWatch* signals);
  void run_service(const RunFiles& f, SignalWatch* signals);
  // Spawns the service (tracked) and waits for ready_tcp; stops it and throws on a failure.
  std::unique_ptr<Child> start_service(const RunFiles& f, const ServiceSpec& sv, SignalWatch* signals);
  bool end_sliced_service(Child::WaitEnd end, SignalWatch* signals);
  // keep_service: a round of a unit; the service is stopped only when something failed.
  void run_load(const RunFiles& f, const ServiceSpec& sv, Child& service, SignalWatch* signals,
                bool keep_service = false);
  struct LiveService;                  // a unit's service between its rounds (rounds.cpp)
  std::unique_ptr<LiveService> live_;
  RunResult collect(int index, const std::string& variant, double started, const std::string& started_at,
                    bool end_of_run = true);
  struct Sliced {
    std::unique_ptr<Child> child;    // the workload, or a service's load driver
    std::unique_ptr<Child> service;  // a service config: the service (probed)
    ServiceSpec sv;                  // ... with its {port} filled
    RunFiles files;
    bool exited = false;
    double active_s = 0;       // time it was let run, over its slices: what the timeout bounds
    double slice_started = 0;  // steady clock
    double slice_s = 0;        // how long the last slice ran
    std::string slice_started_at;
  };
  std::unique_ptr<Sliced> sliced_;
  std::string output_path(int index, const std::string& variant, const char* stream) const;
  // The command as run: when this session measures another binary than the config's (gate ab),
  // a command whose program is the config's binary runs this one instead.
  std::string command_for(const std::string& cmd) const;
  std::map<std::string, std::string> env_;

  // Who the workload, service and load run as; credentials(): nullptr when that is gate's user.
  RunAs run_as_;
  // The cgroup's CPU quota and its cpu.stat when the current run (slice, round) began.
  CpuQuota cpu_quota_;
  CpuThrottling throttling_mark_;
  const Credentials* credentials() const { return run_as_.drop ? &*run_as_.drop : nullptr; }

  const Config& cfg_;
  plan::ProbePlan target_;
  SessionOptions opts_;
  std::unique_ptr<probe::ProbeEngine> engine_;
  std::string tmp_dir_;
  std::string last_stdout_;
  double last_cpu_s_ = -1;
};

// Machine facts for RunContext: kernel, CPU model and count, hostname; times in ISO 8601 UTC
// (iso_now, common/clock.hpp).
RunContext host_context();

}  // namespace gate::runner
