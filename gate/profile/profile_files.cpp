// The pprof files of gate ab, check, record and calibrate: their paths and their writing.
#include "profile/profile_files.hpp"

#include <filesystem>

namespace gate::profile {

std::string side_profile_path(const std::string& dir, const std::string& side) {
  return (dir.empty() ? "" : dir + "/") + "profile-" + side + ".pb.gz";
}

std::string baseline_profile_path(const std::string& baseline) {
  std::filesystem::path p(baseline);
  p.replace_extension(".pb.gz");
  return p.string();
}

std::string write_profile(ProfileRecorder& rec, const std::string& variant, const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  return rec.write(variant, path);
}

}  // namespace gate::profile
