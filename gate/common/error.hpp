// The one error type of gate: a message that names the object, the cause and the fix, plus the
// process exit code the CLI should end with. Library code throws it; only gate/cli catches it.
#pragma once

#include <stdexcept>
#include <string>

namespace gate {

// Exit codes, identical in every command (documented in README.md).
enum class ExitCode : int {
  kOk = 0,          // no regression / success
  kRegression = 1,  // at least one regression
  kUsage = 2,       // usage or configuration error, bad input file
  kMeasure = 3,     // could not measure: workload failed, no calls, too many drops, BPF refused
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ExitCode code = ExitCode::kUsage)
      : std::runtime_error(message), code_(code) {}

  // "OBJECT: CAUSE\n  fix: FIX" -- the shape every gate error takes.
  static Error make(const std::string& object, const std::string& cause, const std::string& fix,
                    ExitCode code = ExitCode::kUsage) {
    std::string m = object + ": " + cause;
    if (!fix.empty()) m += "\n  fix: " + fix;
    return Error(m, code);
  }

  ExitCode exit_code() const { return code_; }

 private:
  ExitCode code_;
};

}  // namespace gate
