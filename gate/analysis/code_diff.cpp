// Normalised machine code per function, compared between two binaries (x86-64).
#include "analysis/code_diff.hpp"

#include <capstone/capstone.h>

#include <cstdio>

#include "common/error.hpp"

namespace gate::analysis {
namespace {

std::string hex(int64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, v < 0 ? "-0x%llx" : "0x%llx", static_cast<unsigned long long>(v < 0 ? -v : v));
  return b;
}

// What an address means, independent of layout: an offset in this function, a function (+offset),
// or data.
std::string place(uint64_t target, const Function& fn, const FunctionTable& table) {
  if (target >= fn.address && target < fn.address + fn.size) return "L+" + hex(static_cast<int64_t>(target - fn.address));
  if (const Function* other = table.find_containing(target))
    return other->name + (target == other->address ? "" : "+" + hex(static_cast<int64_t>(target - other->address)));
  return "data";
}

std::string operand(csh h, const cs_insn& in, const cs_x86_op& op, bool branch, const Function& fn,
                    const FunctionTable& table) {
  switch (op.type) {
    case X86_OP_REG: return cs_reg_name(h, op.reg);
    case X86_OP_IMM: return branch ? place(static_cast<uint64_t>(op.imm), fn, table) : hex(op.imm);
    case X86_OP_MEM: {
      if (op.mem.base == X86_REG_RIP)
        return "[" + place(in.address + in.size + static_cast<uint64_t>(op.mem.disp), fn, table) + "]";
      std::string m = "[";
      if (op.mem.segment != X86_REG_INVALID) m += std::string(cs_reg_name(h, op.mem.segment)) + ":";
      if (op.mem.base != X86_REG_INVALID) m += cs_reg_name(h, op.mem.base);
      if (op.mem.index != X86_REG_INVALID) m += std::string("+") + cs_reg_name(h, op.mem.index) + "*" + std::to_string(op.mem.scale);
      if (op.mem.disp) m += (op.mem.disp < 0 ? "" : "+") + hex(op.mem.disp);
      return m + "]";
    }
    default: return "?";
  }
}

class X86 {
 public:
  X86() {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h_) != CS_ERR_OK)
      throw Error::make("Capstone", "cannot open an x86-64 disassembler", "reinstall libcapstone");
    cs_option(h_, CS_OPT_DETAIL, CS_OPT_ON);
    insn_ = cs_malloc(h_);
  }
  ~X86() {
    cs_free(insn_, 1);
    cs_close(&h_);
  }
  X86(const X86&) = delete;
  X86& operator=(const X86&) = delete;

  std::vector<std::string> normalize(const elf::ElfFile& elf, const FunctionTable& table, const Function& fn) {
    const auto bytes = elf.read(fn.address, fn.size);
    if (bytes.size() != fn.size)
      throw Error::make(elf.path(), "the code of " + fn.name + " is not in the file", "check the binary is intact");
    std::vector<std::string> out;
    const uint8_t* code = bytes.data();
    size_t left = bytes.size();
    uint64_t pc = fn.address;
    while (left > 0) {
      if (!cs_disasm_iter(h_, &code, &left, &pc, insn_)) {
        out.push_back("(undecodable at L+" + hex(static_cast<int64_t>(pc - fn.address)) + ")");
        break;
      }
      const cs_insn& in = *insn_;
      bool branch = false;
      for (uint8_t i = 0; i < in.detail->groups_count; ++i)
        branch = branch || in.detail->groups[i] == CS_GRP_JUMP || in.detail->groups[i] == CS_GRP_CALL;
      std::string text = in.mnemonic;
      const cs_x86& x = in.detail->x86;
      for (uint8_t i = 0; i < x.op_count; ++i)
        text += (i ? ", " : " ") + operand(h_, in, x.operands[i], branch, fn, table);
      out.push_back(std::move(text));
    }
    return out;
  }

 private:
  csh h_ = 0;
  cs_insn* insn_ = nullptr;
};

void require_x86(const elf::ElfFile& elf) {
  if (elf.arch() != elf::Arch::kX86_64)
    throw Error::make(elf.path(), "is not x86-64: gate compares machine code on x86-64 only so far",
                      "compare code on an amd64 build of both commits");
}

}  // namespace

std::vector<std::string> normalized_code(const elf::ElfFile& elf, const FunctionTable& table, const Function& fn) {
  require_x86(elf);
  X86 d;
  return d.normalize(elf, table, fn);
}

std::map<std::string, CodeComparison> compare_code(const elf::ElfFile& base, const elf::ElfFile& head,
                                                   const std::vector<std::string>& functions) {
  require_x86(base);
  require_x86(head);
  const auto base_table = FunctionTable::from_elf(base), head_table = FunctionTable::from_elf(head);
  X86 d;
  std::map<std::string, CodeComparison> out;
  for (const auto& name : functions) {
    CodeComparison c;
    const Function* b = base_table.find_exact(name);
    const Function* h = head_table.find_exact(name);
    if (b && h) {
      const auto bc = d.normalize(base, base_table, *b), hc = d.normalize(head, head_table, *h);
      c.in_both = true;
      c.same = bc == hc;
      c.moved_bytes = static_cast<int64_t>(h->address) - static_cast<int64_t>(b->address);
      c.base_instructions = bc.size();
      c.head_instructions = hc.size();
    }
    out[name] = c;
  }
  return out;
}

}  // namespace gate::analysis
