// ProfileRecorder: what a measuring command holds while it profiles: one Sampler for both sides,
// the binaries' pclntab readers, and at the end the symbolised profile of each side, written as
// pprof files, with a one-line account of it (samples, [gate probe] share, what was lost).
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "profile/function_samples.hpp"
#include "profile/pprof.hpp"
#include "profile/profile.hpp"
#include "profile/sampler.hpp"

namespace gate::profile {

// One execution's samples: per asked function, and the run-level counts the cross-check of the
// sampled figures needs (results/result.hpp RunResult::run_samples and its neighbours).
struct ExecutionSamples {
  std::vector<FunctionSamples> functions;  // in the order of the names asked for
  uint64_t samples = 0;       // counted by the kernel for the side's processes, with a stack or not
  uint64_t no_stack = 0;      // ... of which with no stack (not stored: map full, no registers)
  uint64_t not_to_root = 0;   // Profile::not_to_root
  uint64_t no_caller = 0;     // Profile::no_caller
  uint64_t fp_differed = 0;   // Profile::fp_differed
};

class ProfileRecorder {
 public:
  // side -> binary ("" for `gate run`, "base"/"head" for `gate ab`, "base@K"/"head@K" for its
  // layout variant K: runner::sample_label). Reads each binary's pclntab (names, and the unwinder's
  // pc-to-SP table: profile/unwind.hpp) and loads the sampler.
  // Throws gate::Error.
  ProfileRecorder(int hz, const std::map<std::string, std::string>& binaries);
  ~ProfileRecorder();

  // For runner::SessionOptions::on_tracked: starts sampling a tracked process as its variant.
  std::function<void(pid_t, const std::string&)> tracker();
  // The sampled instrument (issue 39): the samples of the execution that just ended on `variant`'s
  // side, per function of `names` (profile/function_samples.hpp). They stay in the side's profile;
  // a warm-up's ("warmup") are taken out of the kernel and dropped. Call it after every execution
  // (runner::SessionOptions::on_collected), while no workload process of either side runs.
  ExecutionSamples collect_execution(const std::string& variant, const std::vector<std::string>& names);
  uint64_t period_ns() const;
  // Sampler::pause: for a run that nothing samples (an unsampled clean execution), so that the
  // sampler's interrupts do not slow it.
  void pause(bool paused);
  // Reads the variant's samples from the kernel and symbolises them (once per variant).
  const Profile& finish(const std::string& variant);
  // finish() + write_pprof(path). Returns the one-line account.
  std::string write(const std::string& variant, const std::string& path);
  int hz() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "profile: 9,944 samples at 997 Hz; 0.3% in [gate probe]; 0 lost" (lost: no stack, map full), and
// "; N not walked to their root" when some stacks were cut short (Profile::not_to_root).
std::string describe(const Profile& p);

}  // namespace gate::profile
