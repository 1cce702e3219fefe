// Runs the real gate executable of this build tree as a child process, for end-to-end tests:
// exit code, stdout and stderr, with optional extra environment, working directory, a command
// prefix (setpriv) and a callback that runs while gate does (to send it a signal). Built on
// gate::run_process, like every other program the tests run.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gate::testing {

struct CliOutcome {
  int code = -1;  // exit status, or 128 + signal
  std::string out, err;
};

struct CliOptions {
  std::map<std::string, std::string> env;   // set in gate's environment
  std::vector<std::string> prefix;          // e.g. {"/usr/bin/setpriv", "--bounding-set=-bpf", "--"}
  std::function<void(pid_t)> during;        // called in the test (another thread) while gate runs
  std::string cwd;                          // "": the test's
};

CliOutcome run_gate(const std::vector<std::string>& args, const CliOptions& options = {});
// Function names on the lines of a text report whose verdict is "regression", in report order.
std::vector<std::string> regressions(const std::string& report);
// Any program (argv[0] looked up in PATH), in cwd, with env added to the test's environment.
CliOutcome run_program(const std::vector<std::string>& argv, const std::string& cwd,
                       const std::map<std::string, std::string>& env = {});

}  // namespace gate::testing
