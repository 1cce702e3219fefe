// Turns the kernel's raw stacks into source frames with pclntab (analysis/pc_lines.hpp): puts back
// the caller the frame-pointer walk skips at a frameless leaf or in a prologue/epilogue, expands
// inlined calls, and attributes samples inside gate's uprobes to a [gate probe] frame.
#pragma once

#include <functional>
#include <string>

#include "analysis/pc_lines.hpp"
#include "profile/profile.hpp"

namespace gate::profile {

// Names a kernel PC (kallsyms); "" when unknown. Only used to tell uprobe handling apart.
using KernelSymbols = std::function<std::string(uint64_t)>;

// The user stack with the skipped caller put back: at the leaf PC, pclntab's SP delta says where
// the return address is (SP + delta); when delta is 0 or 8 and that word (read by the kernel) is
// not the FP walk's next address, it is inserted after the leaf. Returns whether it inserted.
bool fix_leaf(std::vector<uint64_t>& user, uint64_t sp_word0, uint64_t sp_word1, const analysis::PcLines& lines);

// Whether a kernel stack is inside uprobe handling (int3 trap, handler, single-step notifier).
bool in_uprobe_handling(const std::vector<uint64_t>& kernel, const KernelSymbols& ksyms);

Profile symbolize(const RawProfile& raw, const analysis::PcLines& lines, const KernelSymbols& ksyms);

// /proc/kallsyms as a KernelSymbols (addresses read as root; zeros otherwise, giving "").
KernelSymbols read_kallsyms();

}  // namespace gate::profile
