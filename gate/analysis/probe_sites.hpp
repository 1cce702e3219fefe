// Where to put the uprobes of a Go function: the entry site (the stack-check jump, so that a
// morestack restart is not a second call; else the first instruction) and every RET, found with
// a real disassembler (Capstone) over [entry, entry+size).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/functions.hpp"
#include "elf/elf_file.hpp"

namespace gate::analysis {

// How the kernel runs a probed instruction (x86 uprobes): emulated in the kernel (nop, push reg,
// jmp/call/jcc rel) costs ~0.7 us here; anything else is single-stepped out of line (~6 us).
enum class CostClass { kEmulated, kSingleStepped, kUnprobeable };
const char* to_string(CostClass c);

enum class EntryPlacement { kStackCheckJump, kFirstInstruction };
const char* to_string(EntryPlacement p);  // "stack-check-jump", "first-instruction"

enum class EntryPolicy {
  kAuto,              // stack-check jump where there is one, else first instruction
  kFirstInstruction,  // always the first instruction (for the benchmark; double-counts restarts)
};

struct Site {
  uint64_t address = 0;     // virtual address
  std::string instruction;  // "jbe 0x47b04b", "ret"
  CostClass cost = CostClass::kSingleStepped;
};

struct ProbeSites {
  bool measurable = false;
  std::string reason;  // why not measurable, e.g. "no RET instruction (ends in a tail jump)"
  EntryPlacement placement = EntryPlacement::kFirstInstruction;
  // Why the entry sits where it does: "stack check: jbe to runtime.morestack_noctxt",
  // "no stack check (frameless leaf or nosplit)", "first instruction requested".
  std::string placement_reason;
  Site entry;
  // For kStackCheckJump: the jump's condition as GATE_JCC_* (bpf/gate_shared.h): the BPF program
  // ignores an entry whose jump is taken (a restart through morestack).
  int jump_condition = 0;
  std::vector<Site> returns;
};

// Throws gate::Error only for an unsupported architecture; an undecodable body gives
// measurable=false with the reason.
ProbeSites find_probe_sites(const elf::ElfFile& elf, const FunctionTable& table, const Function& fn,
                            EntryPolicy policy = EntryPolicy::kAuto);

}  // namespace gate::analysis
