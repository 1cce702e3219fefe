// --profile[=HZ] (gate run, check, record, ab, calibrate) and the config's profile: {hz: N}: sampled CPU profiles of the
// measured runs (gate/profile), written as pprof files.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <string>

#include "profile/recorder.hpp"
#include "runner/config.hpp"
#include "runner/measure.hpp"
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

// run, check, record: when profiling, builds the config's binary first (the profiler reads it
// before the runs; mo.skip_build is then set) and starts profiling it as side "".
std::unique_ptr<profile::ProfileRecorder> start_profile_built(int hz, const runner::Config& cfg,
                                                               runner::MeasureOptions& mo, runner::SignalWatch* signals);

}  // namespace gate::cli
