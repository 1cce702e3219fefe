// Where a native function's entry probe goes: its first instruction, or a later one the kernel
// emulates, when every instruction before it leaves RSP and memory alone (`endbr64; push rbp`,
// libc qsort's `xor r8d, r8d; jmp qsort_r`). [RSP] is still the return address there, as the
// uretprobe and the pairing key need, and the hit costs an emulation instead of a single step.
#pragma once

#include <cstdint>
#include <optional>

#include "elf/elf_file.hpp"

namespace gate::analysis {

// The address of that later instruction, or nullopt to keep the first one: none among the first
// four, something before it writes RSP or memory or branches, the body cannot be decoded, or a
// branch of the body lands on a skipped instruction or on the site itself (a loop back to the top
// would then count one call twice). x86-64 only; size 0 (no symbol size): nullopt.
std::optional<uint64_t> cheaper_native_entry(const elf::ElfFile& elf, uint64_t address, uint64_t size);

}  // namespace gate::analysis
