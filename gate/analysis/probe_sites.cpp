// Places a Go function's uprobes by disassembling its body (Capstone): every RET, and the entry
// (the stack-check jump to runtime.morestack*, else the first instruction), each with its cost.
#include "analysis/probe_sites.hpp"

#include <capstone/capstone.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "analysis/capstone.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "gate_shared.h"

namespace gate::analysis {
namespace {

// Go's prologue is at most ~6 instructions (huge frames: mov, sub, jb, cmp, jbe); the morestack
// block spills up to 9 integer and 15 floating-point argument registers before its call.
constexpr size_t kPrologueWindow = 16;
constexpr size_t kMorestackBlockWindow = 40;
// arm64 `b.ls` (taken when C == 0 or Z == 1). Not yet in bpf/gate_shared.h: x86-only there.
constexpr int kJccArm64Ls = GATE_JCC_LS;

enum class Flow { kOther, kRet, kCall, kJump, kCondJump };

// What the analysis needs of one decoded instruction.
struct Insn {
  uint64_t address = 0;
  uint16_t size = 0;
  Flow flow = Flow::kOther;
  std::optional<uint64_t> target;  // direct branch / call target
  int jump_condition = 0;          // GATE_JCC_* for the conditions the BPF side understands
  CostClass cost = CostClass::kSingleStepped;
  std::string text;                // "jbe 0x47b04b"; only for the first instruction and branches
};

struct Body {
  std::vector<Insn> insns;
  std::optional<uint64_t> undecodable_at;  // first bytes Capstone rejects (x86; arm64 at the entry)
  size_t data_words = 0;                   // arm64 words that are not instructions (skipped)
};

// ---- x86-64 ------------------------------------------------------------------------------

bool is_legacy_prefix(uint8_t b) {
  switch (b) {
    case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
    case 0x66: case 0x67: return true;
    default: return false;
  }
}

// One-byte opcodes arch/x86/kernel/uprobes.c refuses on 64-bit (good_insns_64 zeros): invalid in
// long mode, or never supported (int3, int N, iret, in/out, hlt, cli/sti).
bool is_refused_opcode(uint8_t op) {
  static constexpr uint8_t kRefused[] = {0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f, 0x37, 0x3f,
                                         0x60, 0x61, 0x62, 0x6c, 0x6d, 0x6e, 0x6f, 0x82, 0x9a, 0xcc, 0xcd,
                                         0xce, 0xcf, 0xd4, 0xd5, 0xd6, 0xe4, 0xe5, 0xe6, 0xe7, 0xea, 0xec,
                                         0xed, 0xee, 0xef, 0xf1, 0xf4, 0xfa, 0xfb};
  return std::find(std::begin(kRefused), std::end(kRefused), op) != std::end(kRefused);
}

// Mirrors arch/x86/kernel/uprobes.c: segment (es cs ss ds) and lock prefixes are refused;
// branch_setup_xol_ops emulates nops, jmp/call rel and jcc rel (not with a 0x66 prefix);
// push_setup_xol_ops emulates `push reg` (optionally REX 0x41 for r8-r15); the rest is
// single-stepped out of line.
CostClass x86_cost(const cs_insn& in) {
  size_t i = 0;
  bool operand_size = false, any_prefix = false;
  for (; i < in.size && is_legacy_prefix(in.bytes[i]); ++i) {
    const uint8_t p = in.bytes[i];
    if (p == 0x26 || p == 0x2e || p == 0x36 || p == 0x3e || p == 0xf0) return CostClass::kUnprobeable;
    operand_size |= p == 0x66;
    any_prefix = true;
  }
  const uint8_t rex = i < in.size && (in.bytes[i] & 0xf0) == 0x40 ? in.bytes[i++] : 0;
  if (i >= in.size) return CostClass::kUnprobeable;
  const uint8_t op = in.bytes[i];
  const int op2 = op == 0x0f && i + 1 < in.size ? in.bytes[i + 1] : -1;
  if (is_refused_opcode(op)) return CostClass::kUnprobeable;
  if (in.id == X86_INS_NOP) return CostClass::kEmulated;
  const bool rel_branch = op == 0xeb || op == 0xe9 || op == 0xe8 || (op >= 0x70 && op <= 0x7f) ||
                          (op2 >= 0x80 && op2 <= 0x8f);
  if (rel_branch) return operand_size ? CostClass::kSingleStepped : CostClass::kEmulated;
  if (op >= 0x50 && op <= 0x57 && !any_prefix && (rex == 0 || rex == 0x41)) return CostClass::kEmulated;
  return CostClass::kSingleStepped;
}

int x86_jump_condition(unsigned id) {
  if (id == X86_INS_JBE) return GATE_JCC_BE;
  if (id == X86_INS_JB) return GATE_JCC_B;
  return 0;
}

bool in_group(const cs_insn& in, uint8_t group) {
  const cs_detail& d = *in.detail;
  return std::find(d.groups, d.groups + d.groups_count, group) != d.groups + d.groups_count;
}

Flow x86_flow(const cs_insn& in) {
  if (in.id == X86_INS_RET) return Flow::kRet;
  if (in.id == X86_INS_CALL) return Flow::kCall;
  if (in.id == X86_INS_JMP) return Flow::kJump;
  if (in_group(in, CS_GRP_JUMP)) return Flow::kCondJump;
  return Flow::kOther;
}

std::optional<uint64_t> x86_target(const cs_insn& in) {
  const cs_x86& x = in.detail->x86;
  if (x.op_count == 1 && x.operands[0].type == X86_OP_IMM) return static_cast<uint64_t>(x.operands[0].imm);
  return std::nullopt;
}

// ---- arm64 -------------------------------------------------------------------------------

Flow arm64_flow(const cs_insn& in) {
  const cs_arm64& a = in.detail->arm64;
  switch (in.id) {
    case ARM64_INS_RET: return Flow::kRet;
    case ARM64_INS_BL: case ARM64_INS_BLR: return Flow::kCall;
    case ARM64_INS_BR: return Flow::kJump;
    case ARM64_INS_B:
      return a.cc == ARM64_CC_INVALID || a.cc == ARM64_CC_AL || a.cc == ARM64_CC_NV ? Flow::kJump : Flow::kCondJump;
    case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ: return Flow::kCondJump;
    default: return Flow::kOther;
  }
}

std::optional<uint64_t> arm64_target(const cs_insn& in) {
  const cs_arm64& a = in.detail->arm64;
  for (int i = a.op_count - 1; i >= 0; --i)  // the label is the last operand (cbz x0, label)
    if (a.operands[i].type == ARM64_OP_IMM) return static_cast<uint64_t>(a.operands[i].imm);
  return std::nullopt;
}

// arch/arm64/kernel/probes/decode-insn.c rejects what cannot be single-stepped: exclusive
// loads/stores (the monitor is lost in the trap), system register access, exception generation.
bool arm64_refused(unsigned id) {
  static constexpr unsigned kRefused[] = {
      ARM64_INS_LDXR,  ARM64_INS_LDXRB,  ARM64_INS_LDXRH,  ARM64_INS_LDAXR, ARM64_INS_LDAXRB, ARM64_INS_LDAXRH,
      ARM64_INS_STXR,  ARM64_INS_STXRB,  ARM64_INS_STXRH,  ARM64_INS_STLXR, ARM64_INS_STLXRB, ARM64_INS_STLXRH,
      ARM64_INS_LDXP,  ARM64_INS_LDAXP,  ARM64_INS_STXP,   ARM64_INS_STLXP, ARM64_INS_MSR,    ARM64_INS_MRS,
      ARM64_INS_SVC,   ARM64_INS_HVC,    ARM64_INS_SMC,    ARM64_INS_BRK,   ARM64_INS_HLT,    ARM64_INS_DCPS1,
      ARM64_INS_DCPS2, ARM64_INS_DCPS3,  ARM64_INS_ERET};
  return std::find(std::begin(kRefused), std::end(kRefused), id) != std::end(kRefused);
}

// The same file simulates branches (b, bl, b.cond, cbz, tbz, br, blr, ret) and pc-relative
// address computation; everything else is single-stepped out of line.
CostClass arm64_cost(const cs_insn& in, Flow flow) {
  if (arm64_refused(in.id)) return CostClass::kUnprobeable;
  if (flow != Flow::kOther) return CostClass::kEmulated;
  if (in.id == ARM64_INS_ADR || in.id == ARM64_INS_ADRP) return CostClass::kEmulated;
  return CostClass::kSingleStepped;
}

// ---- decoding ----------------------------------------------------------------------------

class Disassembler {
 public:
  explicit Disassembler(elf::Arch arch)
      : arch_(arch),
        cs_(arch == elf::Arch::kX86_64 ? CS_ARCH_X86 : CS_ARCH_ARM64,
            arch == elf::Arch::kX86_64 ? CS_MODE_64 : CS_MODE_LITTLE_ENDIAN, "a disassembler") {}

  // Linear sweep over exactly [address, address + size): nothing past the symbol (INT3 padding).
  Body decode(std::span<const uint8_t> bytes, uint64_t address) {
    Body body;
    const uint8_t* code = bytes.data();
    size_t left = bytes.size();
    uint64_t pc = address;
    while (left > 0) {
      const uint64_t at = pc;
      if (cs_disasm_iter(cs_.handle(), &code, &left, &pc, cs_.insn())) {
        if (!permanently_undefined(*cs_.insn())) {
          body.insns.push_back(convert(*cs_.insn(), body.insns.empty()));
          continue;
        }
        code -= cs_.insn()->size, left += cs_.insn()->size, pc = at;  // handled below as the word it is
      }
      if (arch_ != elf::Arch::kArm64 || left < 4 || pc == address) {
        body.undecodable_at = pc;  // x86 cannot resynchronise; nor can an entry be a data word
        break;
      }
      // arm64 is fixed-width: a word that is no instruction (a literal pool) is skipped.
      code += 4, left -= 4, pc += 4, ++body.data_words;
    }
    return body;
  }

 private:
  // arm64's UDF (0x0000xxxx): Capstone 5 decodes it, Capstone 4 and go tool objdump do not; either
  // way no instruction to probe (a zero word is also what a literal pool or padding holds).
  // By mnemonic: Capstone 4 has no ARM64_INS_UDF.
  bool permanently_undefined(const cs_insn& in) const {
    return arch_ == elf::Arch::kArm64 && std::string_view(in.mnemonic) == "udf";
  }

  // Text is kept only where a site or a reason can name it: it is most of the decoding cost.
  Insn convert(const cs_insn& in, bool first) const {
    Insn out;
    out.address = in.address;
    out.size = in.size;
    if (arch_ == elf::Arch::kX86_64) {
      out.flow = x86_flow(in);
      out.cost = x86_cost(in);
      out.jump_condition = x86_jump_condition(in.id);
      if (out.flow != Flow::kOther && out.flow != Flow::kRet) out.target = x86_target(in);
    } else {
      out.flow = arm64_flow(in);
      out.cost = arm64_cost(in, out.flow);
      if (in.id == ARM64_INS_B && in.detail->arm64.cc == ARM64_CC_LS) out.jump_condition = kJccArm64Ls;
      if (out.flow != Flow::kOther && out.flow != Flow::kRet) out.target = arm64_target(in);
    }
    if (first || out.flow != Flow::kOther)
      out.text = std::string(in.mnemonic) + (in.op_str[0] ? std::string(" ") + in.op_str : "");
    return out;
  }

  elf::Arch arch_;
  CapstoneHandle cs_;
};

// Opening Capstone costs more than decoding a typical Go function: keep one per thread and ISA.
Disassembler& disassembler_for(elf::Arch arch) {
  thread_local Disassembler x86(elf::Arch::kX86_64), arm64(elf::Arch::kArm64);
  return arch == elf::Arch::kX86_64 ? x86 : arm64;
}

Site site_of(const Insn& in) { return {in.address, in.text, in.cost}; }

// The name of a direct call's target, "" when the table has no function there.
std::string callee_name(const FunctionTable& table, const Insn& call) {
  if (!call.target) return "";
  const Function* f = table.find_containing(*call.target);
  return f ? f->name : "";
}

// Does the code at `target` (inside the body) reach a call of runtime.morestack* before any
// other control transfer? Go spills the argument registers first, so look a few instructions on.
std::string morestack_callee(const Body& body, const FunctionTable& table, uint64_t target) {
  auto it = std::lower_bound(body.insns.begin(), body.insns.end(), target,
                             [](const Insn& in, uint64_t a) { return in.address < a; });
  if (it == body.insns.end() || it->address != target) return "";
  for (size_t n = 0; it != body.insns.end() && n < kMorestackBlockWindow; ++it, ++n) {
    if (it->flow == Flow::kCall) {
      std::string name = callee_name(table, *it);
      return name.starts_with("runtime.morestack") ? name : "";
    }
    if (it->flow != Flow::kOther) return "";
  }
  return "";
}

struct StackCheck {
  const Insn* jump = nullptr;
  std::string callee;
};

// The LAST conditional jump of the prologue that leads to morestack: huge frames first check
// SP - framesize for underflow (jb), then compare with stackguard0 at [g+16] (jbe). Only the
// last one runs exactly once per entry attempt that goes on into the body.
StackCheck find_stack_check(const Body& body, const FunctionTable& table) {
  StackCheck found;
  for (size_t i = 0; i < body.insns.size() && i < kPrologueWindow; ++i) {
    const Insn& in = body.insns[i];
    if (in.flow == Flow::kRet || in.flow == Flow::kCall || in.flow == Flow::kJump) break;
    if (in.flow != Flow::kCondJump || !in.target) continue;
    if (std::string callee = morestack_callee(body, table, *in.target); !callee.empty()) found = {&in, callee};
  }
  return found;
}

void place_entry(ProbeSites& ps, const Body& body, const FunctionTable& table, EntryPolicy policy) {
  ps.entry = site_of(body.insns.front());
  ps.placement = EntryPlacement::kFirstInstruction;
  if (policy == EntryPolicy::kFirstInstruction) {
    ps.placement_reason = "first instruction requested";
    return;
  }
  StackCheck check = find_stack_check(body, table);
  if (!check.jump) {
    ps.placement_reason = "no stack check (frameless leaf or nosplit)";
    return;
  }
  if (check.jump->jump_condition == 0) {  // a condition the BPF side cannot evaluate
    ps.placement_reason = "stack-check `" + check.jump->text + "` has a condition gate cannot evaluate";
    return;
  }
  ps.entry = site_of(*check.jump);
  ps.placement = EntryPlacement::kStackCheckJump;
  ps.jump_condition = check.jump->jump_condition;
  ps.placement_reason = "stack check: " + check.jump->text + " to " + check.callee;
}

// Why a body without RET cannot be timed, in the words a user can check with objdump. A body
// ends either in a jump out of it (a tail call) or, when it always panics, in the morestack
// block, whose jump goes back to the entry: then the last other call tells what never returns.
std::string no_return_reason(const Body& body, const FunctionTable& table, const Function& fn) {
  const Insn& last = body.insns.back();
  const bool jumps_out = last.flow == Flow::kJump && (!last.target || *last.target - fn.address >= fn.size);
  if (jumps_out) return "no RET instruction: ends in a tail jump (`" + last.text + "`), the callee returns for it";
  for (auto it = body.insns.rbegin(); it != body.insns.rend(); ++it) {
    if (it->flow != Flow::kCall) continue;
    const std::string name = callee_name(table, *it);
    if (name.starts_with("runtime.morestack")) continue;
    if (!name.empty()) return "no RET instruction: never returns (last call: " + name + ")";
    break;
  }
  return "no RET instruction: the function never returns";
}

ProbeSites not_measurable(ProbeSites ps, std::string reason) {
  ps.measurable = false;
  ps.reason = std::move(reason);
  return ps;
}

}  // namespace

const char* to_string(CostClass c) {
  switch (c) {
    case CostClass::kEmulated: return "emulated";
    case CostClass::kSingleStepped: return "single-stepped";
    case CostClass::kUnprobeable: return "unprobeable";
  }
  return "?";
}

const char* to_string(EntryPlacement p) {
  return p == EntryPlacement::kStackCheckJump ? "stack-check-jump" : "first-instruction";
}

ProbeSites find_probe_sites(const elf::ElfFile& elf, const FunctionTable& table, const Function& fn,
                            EntryPolicy policy) {
  if (elf.arch() != elf::Arch::kX86_64 && elf.arch() != elf::Arch::kArm64)
    throw Error::make(elf.path(), "unsupported architecture: gate places probes on x86-64 and arm64 only",
                      "build the workload for GOARCH=amd64 or arm64");
  ProbeSites ps;
  ps.entry.address = fn.address;
  if (fn.size == 0) return not_measurable(ps, "size 0 in the symbol table: no body to disassemble");
  const auto bytes = elf.read(fn.address, fn.size);
  if (bytes.empty())
    return not_measurable(ps, "bytes [" + hex(fn.address) + ", " + hex(fn.address + fn.size) +
                                  ") are not in the file (no PT_LOAD segment holds them)");
  const Body body = disassembler_for(elf.arch()).decode(bytes, fn.address);
  if (body.undecodable_at)
    return not_measurable(ps, "undecodable bytes at " + hex(*body.undecodable_at) + " (+" +
                                  hex(*body.undecodable_at - fn.address) + "): not an instruction");
  if (body.insns.empty()) return not_measurable(ps, "no instructions in the body");

  place_entry(ps, body, table, policy);
  for (const auto& in : body.insns)
    if (in.flow == Flow::kRet) ps.returns.push_back(site_of(in));
  if (ps.returns.empty()) return not_measurable(ps, no_return_reason(body, table, fn));
  if (ps.entry.cost == CostClass::kUnprobeable)
    return not_measurable(ps, "the entry instruction `" + ps.entry.instruction + "` cannot carry a uprobe (the kernel refuses it)");
  ps.measurable = true;
  return ps;
}

}  // namespace gate::analysis
