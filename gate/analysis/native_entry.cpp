// The native entry shift: Capstone's operand and register-access details decide which leading
// instructions leave the stack alone; probe_sites' own classification says which is emulated.
#include "analysis/native_entry.hpp"

#include <capstone/capstone.h>

#include <algorithm>
#include <vector>

#include "analysis/functions.hpp"
#include "analysis/probe_sites.hpp"

namespace gate::analysis {

namespace {

constexpr int kLookahead = 4;

// How probe_sites classifies the instruction at `address` (the first of a body starting there).
CostClass cost_at(const elf::ElfFile& elf, uint64_t address, uint64_t size) {
  const Function f{"", address, size};
  const FunctionTable one({f}, "native");
  return find_probe_sites(elf, one, f, EntryPolicy::kFirstInstruction).entry.cost;
}

// Leaves RSP and memory as they were, and falls through to the next instruction.
bool stack_neutral(csh h, const cs_insn& in) {
  const cs_detail& d = *in.detail;
  for (uint8_t i = 0; i < d.groups_count; ++i)
    if (d.groups[i] == CS_GRP_JUMP || d.groups[i] == CS_GRP_CALL || d.groups[i] == CS_GRP_RET ||
        d.groups[i] == CS_GRP_INT || d.groups[i] == CS_GRP_IRET || d.groups[i] == CS_GRP_BRANCH_RELATIVE)
      return false;
  for (uint8_t i = 0; i < d.x86.op_count; ++i)
    if (d.x86.operands[i].type == X86_OP_MEM && (d.x86.operands[i].access & CS_AC_WRITE)) return false;
  cs_regs read, written;
  uint8_t nread = 0, nwritten = 0;
  if (cs_regs_access(h, &in, read, &nread, written, &nwritten) != CS_ERR_OK) return false;
  for (uint8_t i = 0; i < nwritten; ++i)
    if (written[i] == X86_REG_RSP || written[i] == X86_REG_ESP || written[i] == X86_REG_SP) return false;
  return true;
}

}  // namespace

std::optional<uint64_t> cheaper_native_entry(const elf::ElfFile& elf, uint64_t address, uint64_t size) {
  if (elf.arch() != elf::Arch::kX86_64 || size == 0) return std::nullopt;
  const auto bytes = elf.read(address, size);
  if (bytes.empty() || cost_at(elf, address, size) != CostClass::kSingleStepped) return std::nullopt;
  csh h = 0;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) return std::nullopt;
  cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  cs_insn* all = nullptr;
  const size_t n = cs_disasm(h, bytes.data(), bytes.size(), address, 0, &all);
  std::optional<uint64_t> site;
  for (size_t i = 0; i < n && i < kLookahead; ++i) {
    if (i > 0 && cost_at(elf, all[i].address, address + size - all[i].address) == CostClass::kEmulated) {
      site = all[i].address;
      break;
    }
    if (!stack_neutral(h, all[i])) break;
  }
  // No branch of the body may land on a skipped instruction or on the site.
  for (size_t i = 0; site && i < n; ++i) {
    const cs_x86& x = all[i].detail->x86;
    for (uint8_t k = 0; k < x.op_count; ++k)
      if (x.operands[k].type == X86_OP_IMM && all[i].id != X86_INS_MOV && x.operands[k].imm > static_cast<int64_t>(address) &&
          x.operands[k].imm <= static_cast<int64_t>(*site) &&
          std::any_of(all[i].detail->groups, all[i].detail->groups + all[i].detail->groups_count,
                      [](uint8_t g) { return g == CS_GRP_JUMP || g == CS_GRP_CALL; }))
        site.reset();
  }
  if (all) cs_free(all, n);
  cs_close(&h);
  return site;
}

}  // namespace gate::analysis
