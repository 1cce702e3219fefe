// Where the comparing commands' pprof files go, and writing them there: a side's profile in the
// report directory (or the current one), the baseline's beside the baseline.
#pragma once

#include <string>

#include "profile/recorder.hpp"

namespace gate::profile {

// DIR/profile-SIDE.pb.gz; profile-SIDE.pb.gz in the current directory when dir is "".
std::string side_profile_path(const std::string& dir, const std::string& side);

// The profile stored beside a baseline: baselines/NAME.json -> baselines/NAME.pb.gz.
std::string baseline_profile_path(const std::string& baseline);

// rec's profile of variant into path, its directory created first. Returns the recorder's
// one-line account of what it holds.
std::string write_profile(ProfileRecorder& rec, const std::string& variant, const std::string& path);

}  // namespace gate::profile
