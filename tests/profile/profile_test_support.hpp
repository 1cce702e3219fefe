// Shared by the profile tests: the test program (tests/profile/target) and a shell helper.
#pragma once

#include <string>
#include <vector>

#include "support/go_build.hpp"

namespace gate::testing {

inline std::string build_profiletarget(const GoToolchain& tc, std::vector<std::string> flags = {}) {
  return build_go(GoBuild{std::string(GATE_SOURCE_DIR) + "/tests/profile/target", ".", tc, std::move(flags), {}});
}

// tests/go/asmcpu: functions whose time is in the standard library's assembly (issue 54 item 8).
inline std::string build_asmcpu(const GoToolchain& tc, std::vector<std::string> flags = {}) {
  return build_go(GoBuild{std::string(GATE_SOURCE_DIR) + "/tests/go/asmcpu", ".", tc, std::move(flags), {}});
}

// Runs a shell command and returns its stdout; throws std::runtime_error when it fails.
std::string run_capture(const std::string& command, int* status = nullptr);

}  // namespace gate::testing
