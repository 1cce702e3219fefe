// --profile[=HZ]: the flag, its precedence over gate.yaml, the sides gate ab samples, and hooking the
// sampler to a session.
#include "cli/profile_flags.hpp"

#include <algorithm>

#include "annotate/change_notes.hpp"
#include "cli/flags.hpp"
#include "common/error.hpp"
#include "profile/profile_files.hpp"

namespace gate::cli {

void add_profile_flag(CLI::App& app, ProfileFlags& f) {
  flag(app, "--profile{" + std::to_string(profile::kDefaultHz) + "}",
       Rerun::left_out("CPU profiles beside the verdict, which they do not change"), f.hz,
       "Also sample CPU profiles of the probed processes (cpu-clock, HZ per CPU; default " +
           std::to_string(profile::kDefaultHz) +
           "; --profile=HZ to choose) and write them as pprof files (docs/profile.md)")
      ->check(CLI::Range(1, 10000));
}

int profile_hz(const ProfileFlags& f, const runner::Config& cfg) { return f.hz > 0 ? f.hz : cfg.profile_hz; }

namespace {

// Each execution's samples, per function of its result (the sampled instrument's figures).
void hook_instrument(profile::ProfileRecorder* rec, runner::SessionOptions& session) {
  session.on_collected = [rec](RunResult& r) {
    std::vector<std::string> names;
    names.reserve(r.functions.size());
    for (const auto& f : r.functions) names.push_back(f.name);
    const auto samples = rec->collect_execution(runner::sample_label(r.variant, r.layout), names);
    for (size_t i = 0; i < r.functions.size(); ++i) {
      r.functions[i].cpu_samples = samples.functions[i].cpu;
      r.functions[i].probe_samples = samples.functions[i].probe;
      r.functions[i].self_samples = samples.functions[i].self;
      r.functions[i].lost_samples = samples.functions[i].lost;
    }
    r.sample_period_ns = rec->period_ns();
    r.sampler = {samples.samples, samples.no_stack, samples.not_to_root, samples.no_caller, samples.fp_differed};
  };
  // A service's round: what was sampled before it is taken out of the kernel and left out.
  session.on_measure_start = [rec](const std::string& label) { rec->collect_execution(label, {}); };
  session.pause_sampling = [rec](bool paused) { rec->pause(paused); };
}

}  // namespace

Sampling start_sampling(int profile_hz, const runner::Config& cfg, const std::map<std::string, std::string>& sides,
                        runner::SessionOptions& session) {
  Sampling s;
  s.profiles = profile_hz > 0;
  const bool instrument = cfg.samples_needed();
  if (!s.profiles && !instrument) return s;
  const int hz = instrument ? std::max(profile_hz, cfg.sampling_hz) : profile_hz;
  try {
    s.recorder = std::make_unique<profile::ProfileRecorder>(hz, sides);
  } catch (const Error& e) {
    const bool optional = !s.profiles && cfg.measure == "auto" && cfg.calls != "entry";
    if (!optional) throw;
    if (session.log)
      session.log(std::string("measure: auto: no CPU samples, every function is measured by its probes: ") + e.what());
    return s;
  }
  session.on_tracked = s.recorder->tracker();
  hook_instrument(s.recorder.get(), session);
  return s;
}

void require_one_binary_a_side(int profile_hz, const std::vector<std::string>& base_binaries,
                               const std::vector<std::string>& head_binaries) {
  if (profile_hz > 0 && (base_binaries.size() > 1 || head_binaries.size() > 1))
    throw Error::make("--profile with " + std::to_string(std::max(base_binaries.size(), head_binaries.size())) +
                          " layout variants a side",
                      "a side's samples are symbolised with one binary, and each variant places the code at other "
                      "addresses",
                      "profile in a gate ab of its own with one --base-binary and one --head-binary (e.g. the first "
                      "variant of each side), or leave --profile (and profile:) out here");
}

Sampling start_ab_sampling(int profile_hz, const runner::Config& cfg, const std::vector<std::string>& base_binaries,
                           const std::vector<std::string>& head_binaries, runner::SessionOptions& session) {
  std::map<std::string, std::string> sides;
  for (const auto* side : {&base_binaries, &head_binaries}) {
    const std::string name = side == &base_binaries ? "base" : "head";
    for (size_t i = 0; i < side->size(); ++i)
      sides[runner::sample_label(name, side->size() > 1 ? static_cast<int>(i) : -1)] = (*side)[i];
  }
  return start_sampling(profile_hz, cfg, sides, session);
}

Sampling start_sampling_built(int profile_hz, const runner::Config& cfg, runner::MeasureOptions& mo,
                              runner::SignalWatch* signals) {
  if (profile_hz <= 0 && !cfg.samples_needed()) return {};
  if (!mo.skip_build) {
    runner::run_build(cfg, mo.session.log, signals);
    mo.skip_build = true;
  }
  return start_sampling(profile_hz, cfg, {{"", cfg.binary}}, mo.session);
}

void write_profile_file(profile::ProfileRecorder& rec, const std::string& variant, const std::string& path,
                        const std::string& what, const Globals& g, const std::string& tail) {
  g.log("wrote " + path + " (CPU profile of " + what + ": " + profile::write_profile(rec, variant, path) + ")" + tail);
}

void write_ab_profiles(profile::ProfileRecorder& rec, verdict::AbJudged& j, const std::string& report_dir,
                       const Globals& g) {
  const std::string base_file = profile::side_profile_path(report_dir, "base");
  const std::string head_file = profile::side_profile_path(report_dir, "head");
  write_profile_file(rec, "base", base_file, "base", g);
  write_profile_file(rec, "head", head_file, "head", g);
  annotate::note_ab_profiles(j.notes, j.comparison, j.base.result, j.head.result, rec, base_file, head_file,
                             [&g](const std::string& l) { g.log(l); });
}

}  // namespace gate::cli
