// Whether a function's machine code changed between two builds, ignoring where things landed:
// instructions decoded with Capstone and normalised (branch targets inside the function as offsets,
// calls and RIP-relative references to code as function names, references to data as "data"), so
// that a function moved by an unrelated change compares equal and a changed body does not.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/functions.hpp"
#include "elf/elf_file.hpp"

namespace gate::analysis {

struct CodeComparison {
  bool in_both = false;     // false: the function is missing from one binary (nothing compared)
  bool same = false;        // normalised instructions identical
  int64_t moved_bytes = 0;  // head entry address - base entry address
  size_t base_instructions = 0, head_instructions = 0;
  // Its direct callees (calls found by disassembly, followed transitively to callee_depth within the
  // program's own code: main and module packages, not the standard library or the runtime), on
  // either side: those whose normalised code differs or that exist on one side only.
  bool callees_compared = false;
  size_t callees = 0;  // distinct callees compared
  std::vector<std::string> changed_callees;
};

// The direct calls of a function's normalised code ("call main.leaf" -> "main.leaf"), in order of
// first appearance; calls into the middle of a function and through registers are left out.
std::vector<std::string> direct_callees(const std::vector<std::string>& normalized);

// Whether a Go function belongs to the program's own code: package main or a package whose import
// path starts with a domain ("example.com/shop.Apply"), not the standard library or the runtime.
bool is_program_code(const std::string& function);

// The function's instructions, normalised as above ("call main.leaf", "jbe L+0x3c",
// "lea rax, [data]"). x86-64 only; throws gate::Error for another architecture or code Capstone
// cannot decode.
std::vector<std::string> normalized_code(const elf::ElfFile& elf, const FunctionTable& table, const Function& fn);

// For each name: its comparison between the two binaries, callees to callee_depth levels (0: none).
std::map<std::string, CodeComparison> compare_code(const elf::ElfFile& base, const elf::ElfFile& head,
                                                   const std::vector<std::string>& functions, int callee_depth = 3);

}  // namespace gate::analysis
