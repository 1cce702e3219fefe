// --profile[=HZ] (gate run, check, record, ab, calibrate) and the config's profile: {hz: N}: sampled CPU profiles of the
// measured runs (gate/profile), written as pprof files. The same sampler feeds the sampled instrument
// (issue 39: each function's CPU time per run, without gate's probes) whenever the config may measure
// a function by samples (measure: auto or samples).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "profile/recorder.hpp"
#include "runner/config.hpp"
#include "runner/measure.hpp"
#include "runner/session.hpp"
#include "verdict/judge.hpp"

namespace gate::cli {

struct ProfileFlags {
  int hz = 0;  // 0: not given on the command line
};

void add_profile_flag(CLI::App& app, ProfileFlags& f);

// The rate to sample at: the flag's, else the config's profile.hz; 0 when profiling is off.
int profile_hz(const ProfileFlags& f, const runner::Config& cfg);

// The sampler of a measuring command: for profiles (pprof files, the profile diff) when asked, and
// for the sampled instrument when the config may measure a function by samples.
struct Sampling {
  std::unique_ptr<profile::ProfileRecorder> recorder;  // nullptr: nothing is sampled
  bool profiles = false;                                // --profile / profile: asked for profiles
  profile::ProfileRecorder* for_profiles() const { return profiles ? recorder.get() : nullptr; }
};

// Starts sampling the sides (label -> binary: "", or "base"/"head", or runner::sample_label's
// "base@K" per layout variant) at profile_hz when profiles are asked, and at least the config's
// sampling.hz when it may measure a function by samples; hooks the session's tracked processes and
// adds each execution's samples per function to its RunResult. When only `measure: auto` wants
// samples and the host cannot sample (a PIE binary, perf events refused), logs why and measures
// with the probes alone. Throws gate::Error otherwise.
Sampling start_sampling(int profile_hz, const runner::Config& cfg, const std::map<std::string, std::string>& sides,
                        runner::SessionOptions& session);

// gate ab: profiles with one binary a side. Throws gate::Error (exit 2) for profile_hz > 0 and
// layout variants: a side's samples are symbolised with one binary.
void require_one_binary_a_side(int profile_hz, const std::vector<std::string>& base_binaries,
                               const std::vector<std::string>& head_binaries);
// gate ab's sampler, as start_sampling: a side per binary ("base", or runner::sample_label's "base@K"
// per layout variant, whose code lies at other addresses).
Sampling start_ab_sampling(int profile_hz, const runner::Config& cfg, const std::vector<std::string>& base_binaries,
                           const std::vector<std::string>& head_binaries, runner::SessionOptions& session);

// run, check, record: builds the config's binary first when sampling (the sampler reads it before
// the runs; mo.skip_build is then set) and starts sampling it as side "".
Sampling start_sampling_built(int profile_hz, const runner::Config& cfg, runner::MeasureOptions& mo,
                              runner::SignalWatch* signals);

// gate ab --profile: both sides' profiles written (profile-base.pb.gz and profile-head.pb.gz, in
// report_dir when given) and the profile diff of each compared function noted in j.notes.
void write_ab_profiles(profile::ProfileRecorder& rec, verdict::AbJudged& j, const std::string& report_dir,
                       const Globals& g);

// Writes variant's profile to path (profile/profile_files.hpp) and says so: "wrote PATH (CPU
// profile of WHAT: ACCOUNT)" and then tail.
void write_profile_file(profile::ProfileRecorder& rec, const std::string& variant, const std::string& path,
                        const std::string& what, const Globals& g, const std::string& tail = "");

}  // namespace gate::cli
