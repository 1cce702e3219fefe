// Normalised machine code per function, compared between two binaries (x86-64).
#include "analysis/code_diff.hpp"

#include <capstone/capstone.h>

#include <cctype>
#include <cstdio>
#include <optional>
#include <set>

#include "analysis/capstone.hpp"
#include "common/error.hpp"
#include "common/format.hpp"

namespace gate::analysis {
namespace {

// What an address means, independent of layout: an offset in this function, a function (+offset),
// or data.
std::string place(uint64_t target, const Function& fn, const FunctionTable& table) {
  if (target >= fn.address && target < fn.address + fn.size) return "L+" + signed_hex(static_cast<int64_t>(target - fn.address));
  if (const Function* other = table.find_containing(target))
    return other->name + (target == other->address ? "" : "+" + signed_hex(static_cast<int64_t>(target - other->address)));
  return "data";
}

std::string operand(csh h, const cs_insn& in, const cs_x86_op& op, bool branch, const Function& fn,
                    const FunctionTable& table) {
  switch (op.type) {
    case X86_OP_REG: return cs_reg_name(h, op.reg);
    case X86_OP_IMM: return branch ? place(static_cast<uint64_t>(op.imm), fn, table) : signed_hex(op.imm);
    case X86_OP_MEM: {
      if (op.mem.base == X86_REG_RIP)
        return "[" + place(in.address + in.size + static_cast<uint64_t>(op.mem.disp), fn, table) + "]";
      std::string m = "[";
      if (op.mem.segment != X86_REG_INVALID) m += std::string(cs_reg_name(h, op.mem.segment)) + ":";
      if (op.mem.base != X86_REG_INVALID) m += cs_reg_name(h, op.mem.base);
      if (op.mem.index != X86_REG_INVALID) m += std::string("+") + cs_reg_name(h, op.mem.index) + "*" + std::to_string(op.mem.scale);
      if (op.mem.disp) m += (op.mem.disp < 0 ? "" : "+") + signed_hex(op.mem.disp);
      return m + "]";
    }
    default: return "?";
  }
}

class X86 {
 public:

  std::vector<std::string> normalize(const elf::ElfFile& elf, const FunctionTable& table, const Function& fn) {
    const auto bytes = elf.read(fn.address, fn.size);
    if (bytes.size() != fn.size)
      throw Error::make(elf.path(), "the code of " + fn.name + " is not in the file", "check the binary is intact");
    std::vector<std::string> out;
    const uint8_t* code = bytes.data();
    size_t left = bytes.size();
    uint64_t pc = fn.address;
    while (left > 0) {
      if (!cs_disasm_iter(cs_.handle(), &code, &left, &pc, cs_.insn())) {
        out.push_back("(undecodable at L+" + signed_hex(static_cast<int64_t>(pc - fn.address)) + ")");
        break;
      }
      const cs_insn& in = *cs_.insn();
      bool branch = false;
      for (uint8_t i = 0; i < in.detail->groups_count; ++i)
        branch = branch || in.detail->groups[i] == CS_GRP_JUMP || in.detail->groups[i] == CS_GRP_CALL;
      std::string text = in.mnemonic;
      const cs_x86& x = in.detail->x86;
      for (uint8_t i = 0; i < x.op_count; ++i)
        text += (i ? ", " : " ") + operand(cs_.handle(), in, x.operands[i], branch, fn, table);
      out.push_back(std::move(text));
    }
    return out;
  }

 private:
  CapstoneHandle cs_{CS_ARCH_X86, CS_MODE_64, "an x86-64 disassembler"};
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

std::vector<std::string> direct_callees(const std::vector<std::string>& normalized) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& insn : normalized) {
    if (!insn.starts_with("call ")) continue;
    std::string target = insn.substr(5);
    if (target.empty() || target.find('.') == std::string::npos || target.starts_with("L+") || target.find('+') != std::string::npos ||
        !std::isalpha(static_cast<unsigned char>(target[0])))
      continue;  // a register, memory, into the middle of something, or not code
    if (seen.insert(target).second) out.push_back(std::move(target));
  }
  return out;
}

bool is_program_code(const std::string& function) {
  if (function.starts_with("main.")) return true;
  const size_t slash = function.find('/'), dot = function.find('.');
  return slash != std::string::npos && dot != std::string::npos && dot < slash;  // "example.com/..."
}

namespace {

// One side's normalised code per function name, decoded once.
class CodeCache {
 public:
  CodeCache(const elf::ElfFile& elf, X86& d) : elf_(elf), table_(FunctionTable::from_elf(elf)), d_(d) {}
  const FunctionTable& table() const { return table_; }
  // nullptr: no such function on this side.
  const std::vector<std::string>* code(const std::string& name) {
    auto it = cache_.find(name);
    if (it != cache_.end()) return it->second ? &*it->second : nullptr;
    const Function* f = table_.find_exact(name);
    auto& slot = cache_[name];
    if (f) slot = d_.normalize(elf_, table_, *f);
    return slot ? &*slot : nullptr;
  }

 private:
  const elf::ElfFile& elf_;
  FunctionTable table_;
  X86& d_;
  std::map<std::string, std::optional<std::vector<std::string>>> cache_;
};

// The callees of `root` on both sides, breadth first to `depth` levels, within the program's code;
// those that differ are recorded in c.
void compare_callees(const std::string& root, CodeCache& base, CodeCache& head, int depth, CodeComparison& c) {
  constexpr size_t kMaxCallees = 400;
  std::set<std::string> seen{root};
  std::vector<std::string> level{root};
  for (int d = 0; d < depth && !level.empty() && seen.size() < kMaxCallees; ++d) {
    std::vector<std::string> next;
    for (const auto& fn : level)
      for (CodeCache* side : {&base, &head})
        if (const auto* code = side->code(fn))
          for (auto& callee : direct_callees(*code))
            if (is_program_code(callee) && seen.size() < kMaxCallees && seen.insert(callee).second)
              next.push_back(callee);
    for (const auto& callee : next) {
      const auto *b = base.code(callee), *h = head.code(callee);
      if (!b || !h || *b != *h) c.changed_callees.push_back(callee);
    }
    c.callees += next.size();
    level = std::move(next);
  }
  c.callees_compared = true;
}

}  // namespace

std::map<std::string, CodeComparison> compare_code(const elf::ElfFile& base, const elf::ElfFile& head,
                                                   const std::vector<std::string>& functions, int callee_depth) {
  require_x86(base);
  require_x86(head);
  X86 d;
  CodeCache base_code(base, d), head_code(head, d);
  const auto& base_table = base_code.table();
  const auto& head_table = head_code.table();
  std::map<std::string, CodeComparison> out;
  for (const auto& name : functions) {
    CodeComparison c;
    const Function* b = base_table.find_exact(name);
    const Function* h = head_table.find_exact(name);
    if (b && h) {
      const auto& bc = *base_code.code(name);
      const auto& hc = *head_code.code(name);
      c.in_both = true;
      c.same = bc == hc;
      c.moved_bytes = static_cast<int64_t>(h->address) - static_cast<int64_t>(b->address);
      c.base_instructions = bc.size();
      c.head_instructions = hc.size();
      if (callee_depth > 0) compare_callees(name, base_code, head_code, callee_depth, c);
    }
    out[name] = c;
  }
  return out;
}

}  // namespace gate::analysis
