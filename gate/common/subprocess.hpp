// Running a program to completion with its output captured: git (baselines from a commit), the
// build step, and the tests' helpers (the gate binary, go build). Workloads are not run here: they
// need runner::Child (held before exec until BPF tracks them).
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gate {

// Another user for a child process: gate keeps its own privileges (BPF) and runs the workload, the
// service, the load and the build as this user (runner/run_as.hpp decides who).
struct Credentials {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups (the user's, from the group database)
};
// In a forked child, before exec: becomes `c` for good (groups, gid, then uid). Async-signal-safe;
// returns 0 or the errno of the call that failed.
int become(const Credentials& c);

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH when it has no '/'
  std::string cwd;                         // "": gate's
  std::map<std::string, std::string> env;  // set in the child on top of gate's environment
  bool clear_env = false;                  // true: `env` is the whole environment
  bool merge_stderr = false;               // stderr into `out`, interleaved as written
  bool own_group = false;                  // own process group (stopped as a whole), killed if gate dies
  const Credentials* as = nullptr;         // run as this user (nullptr: as gate)
  // Runs in a thread of gate while the process runs (e.g. a test sends it a signal); joined before
  // run_process returns.
  std::function<void(pid_t)> during;
  // When cancel_fd becomes readable and cancelled() is true, the process (its group with own_group)
  // gets SIGTERM, then SIGKILL after 2 s. For a SignalWatch: its fd and poll_signal().
  int cancel_fd = -1;
  std::function<bool()> cancelled;
};

struct ProcessResult {
  int status = -1;        // exit status, or 128 + signal
  int exec_errno = 0;     // not 0: the program could not be started (errno of exec or chdir); status is 127
  bool cancelled = false; // stopped because cancelled() said so
  std::string out, err;   // captured output (err empty with merge_stderr)
};

// Forks, execs and waits, reading both outputs as they come (no pipe can fill up). Throws
// gate::Error (exit 3) only when gate itself cannot create pipes or fork.
ProcessResult run_process(const ProcessSpec& spec);

// gate's environment with `env` set on top ("NAME=value" strings); only `env` when clear.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& env, bool clear = false);

// The last max_bytes of s, starting after a line break when cut ("...\n" marks the cut).
std::string tail_lines(const std::string& s, size_t max_bytes);

}  // namespace gate
