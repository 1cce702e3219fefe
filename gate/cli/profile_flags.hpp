// --profile[=HZ] (gate run, gate ab) and the config's profile: {hz: N}: sampled CPU profiles of the
// measured runs (gate/profile), written as pprof files.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <string>

#include "profile/recorder.hpp"
#include "runner/config.hpp"
#include "runner/session.hpp"

namespace gate::cli {

struct ProfileFlags {
  int hz = 0;  // 0: not given on the command line
};

void add_profile_flag(CLI::App& app, ProfileFlags& f);

// The rate to sample at: the flag's, else the config's profile.hz; 0 when profiling is off.
int profile_hz(const ProfileFlags& f, const runner::Config& cfg);

// Starts profiling the sides (variant -> binary) when hz > 0, hooking the session's tracked
// processes; nullptr when off.
std::unique_ptr<profile::ProfileRecorder> start_profile(int hz, const std::map<std::string, std::string>& sides,
                                                         runner::SessionOptions& session);

}  // namespace gate::cli
