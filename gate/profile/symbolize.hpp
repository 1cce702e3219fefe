// Turns the kernel's raw stacks into source frames with pclntab (analysis/pc_lines.hpp): expands
// inlined calls, attributes samples inside gate's uprobes to a [gate probe] frame, and counts the
// stacks the kernel side could not walk to their root.
#pragma once

#include <functional>
#include <string>

#include "analysis/pc_lines.hpp"
#include "profile/profile.hpp"

namespace gate::profile {

// Names a kernel PC (kallsyms); "" when unknown. Only used to tell uprobe handling apart.
using KernelSymbols = std::function<std::string(uint64_t)>;

// Whether a kernel stack is inside uprobe handling (int3 trap, handler, single-step notifier).
bool in_uprobe_handling(const std::vector<uint64_t>& kernel, const KernelSymbols& ksyms);

Profile symbolize(const RawProfile& raw, const analysis::PcLines& lines, const KernelSymbols& ksyms);

// /proc/kallsyms as a KernelSymbols (addresses read as root; zeros otherwise, giving "").
KernelSymbols read_kallsyms();

}  // namespace gate::profile
