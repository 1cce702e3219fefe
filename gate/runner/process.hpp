// Child processes of gate: spawned held at a start gate (so BPF tracks the pid before the
// workload runs a single instruction), in their own process group, output to files, waited on
// with a timeout while SIGINT/SIGTERM sent to gate are caught.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/subprocess.hpp"

namespace gate::runner {

// Blocks SIGINT, SIGTERM and SIGHUP in gate and reads them through a signalfd, so that a ^C
// during a run stops the workload and still writes partial output. One per process.
class SignalWatch {
 public:
  SignalWatch();
  ~SignalWatch();
  int fd() const { return fd_; }
  // The signal received so far (0 if none); non-blocking.
  int poll_signal();
  int received() const { return received_; }

 private:
  int fd_ = -1;
  int received_ = 0;
};

struct SpawnOptions {
  std::string command;  // run with /bin/sh -c, or exec'd directly when it has no shell syntax
  std::string cwd;
  std::map<std::string, std::string> env;  // added to gate's environment
  std::string stdout_path;  // files that receive the child's output ("" = /dev/null)
  std::string stderr_path;
  bool die_with_gate = true;  // PR_SET_PDEATHSIG: killed if gate is killed
  // Time slicing: the child stops itself (SIGSTOP) just before exec and spawn() returns once it is
  // stopped, so that not one instruction of the workload runs before the first resume().
  bool start_stopped = false;
  // Run as this user (runner/run_as.hpp) after the output files are opened and the directory
  // entered as gate; nullptr: as gate. gate keeps its own privileges for BPF.
  const Credentials* as = nullptr;
};

class Child {
 public:
  // Forks the child and holds it before exec; `on_forked(pid)` runs in gate (e.g. tracks the
  // pid in BPF) and then the child is released. Throws gate::Error (exit 3) if exec fails.
  static Child spawn(const SpawnOptions& opts, const std::function<void(pid_t)>& on_forked);

  Child(Child&&) noexcept;
  Child& operator=(Child&&) = delete;
  ~Child();  // kills the process group if still running

  pid_t pid() const { return pid_; }
  bool running();

  enum class WaitEnd { kExited, kTimeout, kSignal };
  // Waits until exit, `timeout_s` (<= 0: forever), or a signal on `signals`.
  WaitEnd wait(double timeout_s, SignalWatch* signals);
  // Exit status as a shell reports it: code, or 128+signal. Valid after kExited.
  int status() const { return status_; }
  // CPU seconds (user + system) of the child and the descendants it waited for, from wait4's
  // rusage. Valid after kExited; -1 before.
  double cpu_seconds() const { return cpu_s_; }
  // Sends `sig` to the process group, waits up to grace_s, then SIGKILLs the group.
  void stop(int sig, double grace_s);

  // Time slicing. pause(): SIGSTOP to the process group, then waits until every thread of every
  // process in it is stopped (or gone), so that no workload code runs after it returns; throws
  // gate::Error (exit 3) when that takes longer than timeout_s. resume(): SIGCONT to the group;
  // the first resume of a start_stopped child also waits for its exec and throws if it failed.
  void pause(double timeout_s = 30);
  void resume();

 private:
  explicit Child(pid_t pid, int pidfd) : pid_(pid), pidfd_(pidfd) {}
  bool reap(bool block);
  bool wait_stopped_before_exec();
  void check_exec(int errno_fd);
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int status_ = -1;
  double cpu_s_ = -1;
  bool exited_ = false;
  int exec_errno_fd_ = -1;  // start_stopped: read at the first resume (closes at exec)
  std::string command_, cwd_, program_;  // for exec errors
  uid_t as_uid_ = 0;                     // the user it was to run as (SpawnOptions::as), for errors
};

// The last `max_bytes` of a file (for "the tail of its stderr" in errors).
std::string file_tail(const std::string& path, size_t max_bytes = 2000);

// Runs a shell command to completion (the build step); returns its exit status, output in `log`.
// `as`: run as that user (nullptr: as gate).
int run_shell(const std::string& command, const std::string& cwd,
              const std::map<std::string, std::string>& env, std::string* log, SignalWatch* signals,
              const Credentials* as = nullptr);

// Waits until host:port accepts a TCP connection; false on timeout or when `alive` says the
// service died.
bool wait_tcp_ready(const std::string& host_port, double timeout_s, const std::function<bool()>& alive);

}  // namespace gate::runner
