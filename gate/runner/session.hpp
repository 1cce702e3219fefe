// RunSession: one attached probe target plus the workload of a config, run as many times as
// asked. Each run gives a RunResult; a failed run throws gate::Error (exit 3) with the tail of
// the failing process's stderr, or naming the process that holds a service's ready_tcp.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "probe/probe_engine.hpp"
#include "results/result.hpp"
#include "runner/config.hpp"
#include "runner/process.hpp"
#include "plan/probe_plan.hpp"

namespace gate::runner {

struct SessionOptions {
  probe::EngineOptions engine;
  std::string keep_output_dir;  // keep each run's stdout/stderr here ("" = temporary, removed)
  std::function<void(const std::string&)> log;  // progress lines ("" = silent)
  std::map<std::string, std::string> extra_env;  // added to the config's env for every process
};

class RunSession {
 public:
  RunSession(const Config& cfg, const plan::ProbePlan& target, const SessionOptions& opts);
  ~RunSession();

  // One run of the workload (or service + load). `variant` labels it ("base"/"head" in ab).
  RunResult run_once(int index, const std::string& variant, SignalWatch* signals);

  probe::ProbeEngine& engine() { return *engine_; }
  const plan::ProbePlan& target() const { return target_; }
  // Path of the last run's stdout file (valid until the next run).
  const std::string& last_stdout() const { return last_stdout_; }

 private:
  struct RunFiles {
    int index;
    std::string variant;
    std::string out, err;  // the probed process's output files
    std::string label;     // "run 3 (head)", for errors
  };
  void run_workload(const RunFiles& f, SignalWatch* signals);
  void run_service(const RunFiles& f, SignalWatch* signals);
  void run_load(const RunFiles& f, const ServiceSpec& sv, Child& service, SignalWatch* signals);
  RunResult collect(int index, const std::string& variant, double started, const std::string& started_at);
  std::string output_path(int index, const std::string& variant, const char* stream) const;
  // The command as run: when this session measures another binary than the config's (gate ab),
  // a command whose program is the config's binary runs this one instead.
  std::string command_for(const std::string& cmd) const;
  std::map<std::string, std::string> env_;

  const Config& cfg_;
  plan::ProbePlan target_;
  SessionOptions opts_;
  std::unique_ptr<probe::ProbeEngine> engine_;
  std::string tmp_dir_;
  std::string last_stdout_;
};

// Machine facts for RunContext: kernel, CPU model and count, hostname; times in ISO 8601 UTC.
RunContext host_context();
std::string iso_now();

}  // namespace gate::runner
