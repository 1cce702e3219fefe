// --profile[=HZ]: the flag, its precedence over gate.yaml, and hooking the recorder to a session.
#include "cli/profile_flags.hpp"

namespace gate::cli {

void add_profile_flag(CLI::App& app, ProfileFlags& f) {
  app.add_flag("--profile{" + std::to_string(profile::kDefaultHz) + "}", f.hz,
               "Also sample CPU profiles of the probed processes (cpu-clock, HZ per CPU; default " +
                   std::to_string(profile::kDefaultHz) +
                   "; --profile=HZ to choose) and write them as pprof files (docs/profile.md)")
      ->check(CLI::Range(1, 10000));
}

int profile_hz(const ProfileFlags& f, const runner::Config& cfg) { return f.hz > 0 ? f.hz : cfg.profile_hz; }

std::unique_ptr<profile::ProfileRecorder> start_profile(int hz, const std::map<std::string, std::string>& sides,
                                                         runner::SessionOptions& session) {
  if (hz <= 0) return nullptr;
  auto rec = std::make_unique<profile::ProfileRecorder>(hz, sides);
  session.on_tracked = rec->tracker();
  return rec;
}

std::unique_ptr<profile::ProfileRecorder> start_profile_built(int hz, const runner::Config& cfg,
                                                               runner::MeasureOptions& mo, runner::SignalWatch* signals) {
  if (hz <= 0) return nullptr;
  if (!mo.skip_build) {
    runner::run_build(cfg, mo.session.log, signals);
    mo.skip_build = true;
  }
  return start_profile(hz, {{"", cfg.binary}}, mo.session);
}

}  // namespace gate::cli
