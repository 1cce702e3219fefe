// The one error type of gate: the object it is about, the cause and the fix as fields, plus the
// process exit code the CLI should end with. Library code throws it; only gate/cli catches it.
// what() is the text users see: "OBJECT: CAUSE\n  fix: FIX".
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
  // An error that is about gate itself (no object): the message is the cause.
  explicit Error(const std::string& cause, ExitCode code = ExitCode::kUsage) : Error("", cause, "", code) {}

  static Error make(const std::string& object, const std::string& cause, const std::string& fix,
                    ExitCode code = ExitCode::kUsage) {
    return Error(object, cause, fix, code);
  }

  ExitCode exit_code() const { return code_; }
  const std::string& object() const { return object_; }  // "baseline baselines/shop.json"; may be empty
  const std::string& cause() const { return cause_; }    // "does not exist"
  const std::string& fix() const { return fix_; }        // "record one first: ..."; may be empty
  // "OBJECT: CAUSE" on one line (the cause's first line): for a notice that quotes the error.
  std::string summary() const {
    const std::string first = cause_.substr(0, cause_.find('\n'));
    return object_.empty() ? first : object_ + ": " + first;
  }

 private:
  Error(const std::string& object, const std::string& cause, const std::string& fix, ExitCode code)
      : std::runtime_error(compose(object, cause, fix)), code_(code), object_(object), cause_(cause), fix_(fix) {}
  static std::string compose(const std::string& object, const std::string& cause, const std::string& fix) {
    std::string m = object.empty() ? cause : object + ": " + cause;
    if (!fix.empty()) m += "\n  fix: " + fix;
    return m;
  }

  ExitCode code_;
  std::string object_, cause_, fix_;
};

}  // namespace gate
