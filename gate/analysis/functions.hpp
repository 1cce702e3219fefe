// Go function lookup: the table of every function in a binary (from .symtab; from .gopclntab when
// stripped), and resolving the name patterns users write in gate.yaml (common/name_pattern.hpp)
// against it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/name_pattern.hpp"
#include "elf/elf_file.hpp"

namespace gate::analysis {

struct Function {
  std::string name;      // Go symbol name, e.g. "example.com/shop.(*Cart).Checkout"
  uint64_t address = 0;  // entry virtual address
  uint64_t size = 0;     // bytes up to the next function (no padding)
};

class FunctionTable {
 public:
  // From .symtab; when the binary is stripped, from .gopclntab. Throws gate::Error when neither
  // gives functions ("not a Go binary or unknown pclntab layout ...").
  static FunctionTable from_elf(const elf::ElfFile& elf);
  explicit FunctionTable(std::vector<Function> functions, std::string source = "symtab");

  const std::vector<Function>& all() const { return functions_; }  // sorted by address
  const std::string& source() const { return source_; }            // "symtab" or "gopclntab"
  // Also finds an assembly function by its Go name: the symbol table calls it "pkg.f.abi0".
  const Function* find_exact(std::string_view name) const;
  const Function* find_containing(uint64_t address) const;  // function whose range holds address
  // The k names closest to `name` (edit distance, with a bonus for shared package and suffix).
  std::vector<std::string> nearest(std::string_view name, size_t k = 5) const;

 private:
  std::vector<Function> functions_;
  std::string source_;
  // (hash of name, index into functions_), sorted: exact lookup without a second copy of names.
  std::vector<std::pair<uint64_t, uint32_t>> by_name_;
};

// Resolves the patterns in order, de-duplicated, preserving first-match order. An exact name
// that does not exist, or a glob that matches nothing, throws gate::Error (exit 2) naming the
// pattern and listing the nearest matches.
std::vector<Function> resolve(const FunctionTable& table, const std::vector<std::string>& patterns);

}  // namespace gate::analysis
