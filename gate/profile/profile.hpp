// A sampled CPU profile of one side of a run, in two stages: the kernel's raw stacks (addresses,
// as the sampler reads them) and the symbolised profile (source frames, inlined ones expanded)
// that the pprof writer and the reports take.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/pc_lines.hpp"

namespace gate::profile {

// One distinct sampled stack and how many samples had it.
struct RawStack {
  std::vector<uint64_t> user;    // leaf first: the sampled PC, then return addresses (FP walk)
  std::vector<uint64_t> kernel;  // kernel PCs when the sample interrupted the kernel, leaf first
  bool by_table = false;         // the leaf's caller came from the binary's pc-to-SP table
  bool fp_differed = false;      // ... and the leaf's frame pointer named another caller or none
  bool in_probe = false;         // inside a uprobe's handling (the task's active uprobe)
  uint64_t probe_addr = 0;       // ... the probed instruction's address
  uint64_t count = 0;
};

struct RawProfile {
  int hz = 0;
  std::vector<RawStack> stacks;
  uint64_t samples = 0;          // samples of the tracked tree, as the kernel counted them
  uint64_t no_user_stack = 0;    // the kernel could not take the user stack, or could not store it
  uint64_t stack_map_full = 0;   // ... of which the stacks map was full
  uint64_t dropped = 0;          // lost: the counts map was full
};

// A symbolised location: one address and its source frames, innermost first (pprof's Line list).
struct Location {
  uint64_t address = 0;
  std::vector<analysis::SourceFrame> frames;
  bool root = false;  // a stack's root is here (analysis::PcLines::stack_root: runtime.goexit, ...)
};

struct Sample {
  std::vector<uint32_t> locations;  // indices into Profile::locations, leaf first
  uint64_t count = 0;
};

struct Profile {
  int hz = 0;
  uint64_t period_ns() const { return hz > 0 ? 1'000'000'000ull / static_cast<uint64_t>(hz) : 0; }
  std::vector<Location> locations;
  std::vector<Sample> samples;
  // Accounting, in samples.
  uint64_t total = 0;          // all samples of the profile
  uint64_t in_gate_probe = 0;  // attributed to a [gate probe] frame
  // How the stacks were walked (bpf/profile.bpf.c walk_user), in samples with a user stack (the
  // last two of stacks with a frame in the binary: another program's, the shell's, are its own):
  uint64_t by_table = 0;       // the leaf's caller came from the binary's pc-to-SP table
  uint64_t fp_differed = 0;    // ... and the leaf's frame pointer named another caller or none:
                               //     frames a frame-pointer walk alone would have skipped or lost
  uint64_t no_caller = 0;      // the walk found no caller of the leaf: the leaf alone, or only
                               //     words outside the binary's code after it
  uint64_t not_to_root = 0;    // the walk ended before a stack's root (no_caller's included):
                               //     frames toward the root are missing, whole functions maybe
  uint64_t unknown_leaf = 0;   // the leaf PC is in no Go function (vdso, cgo): kOutsideBinaryFrame
  uint64_t lost = 0;           // counted by the kernel but with no stack (no user stack, map full)
  uint64_t lost_map_full = 0;  // ... of which the stacks map was full
};

// The frame name that stands for time spent in gate's own uprobes (trap, handler, single step).
inline constexpr const char* kGateProbeFrame = "[gate probe]";
// A PC in no Go function of the binary: the vDSO, a C library.
inline constexpr const char* kOutsideBinaryFrame = "[outside the Go binary: vdso, C]";

}  // namespace gate::profile
