// Sampler: the kernel-facing part of gate's CPU profiles. Loads bpf/profile.bpf.c, opens a
// cpu-clock perf event per CPU (CI VMs have no hardware PMU) and counts the user stacks of the
// tracked process trees in the kernel, one side per tree (base / head).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>

#include "profile/profile.hpp"
#include "profile/unwind.hpp"

namespace gate::profile {

// 199 Hz per CPU: a prime (it does not beat in step with periodic work) near 200. docs/profile.md
// has what it costs.
inline constexpr int kDefaultHz = 199;

struct SamplerOptions {
  int hz = kDefaultHz;
  // side -> its binary's unwind table (one table may serve several sides). A side without one is
  // walked by frame pointers alone, as the kernel walks them.
  std::map<uint32_t, std::shared_ptr<const UnwindTable>> unwind;
  uint32_t max_stacks = 16384;        // distinct user + kernel stacks kept between drains (~1 KB each)
  uint32_t max_keys = 32768;          // distinct sampled keys (stack, side, fix-up words)
};

class Sampler {
 public:
  // Throws gate::Error (exit 3) naming the cause: no permission, no BPF/BTF, perf events refused.
  explicit Sampler(const SamplerOptions& options);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Samples pid (held before its exec, runner::Child; a PID of gate's own namespace) and every
  // process it forks, from its exec on, as `side`.
  void track(pid_t pid, uint32_t side);
  // Moves every sample counted so far, of every side, out of the kernel's maps into this object,
  // and frees the stacks they used, so that the stacks map (max_stacks) holds one run's stacks,
  // not a session's: the recorder drains it between runs, while no tracked process runs (a sample
  // taken during a drain can lose its stack: it is then counted as lost, never given a wrong one).
  void drain();
  // drain(), then hands over one side's stacks since its last collect.
  RawProfile collect(uint32_t side);
  // Stops (true) or restarts (false) the cpu-clock events on every CPU. The events interrupt every
  // CPU, tracked process or not (each interrupt costs an untracked one ~18 us on a KVM guest at
  // 4999 Hz: ~9% of its time), so a run that nothing should sample goes with them paused.
  void pause(bool paused);
  int hz() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gate::profile
