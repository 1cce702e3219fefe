// Go function lookup: the table of every function in a binary (from .symtab; from .gopclntab when
// stripped) and the name patterns users write in gate.yaml (exact names and globs).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_file.hpp"

namespace gate::analysis {

struct Function {
  std::string name;      // Go symbol name, e.g. "example.com/shop.(*Cart).Checkout"
  uint64_t address = 0;  // entry virtual address
  uint64_t size = 0;     // bytes up to the next function (no padding)
};

// Glob syntax over Go symbol names (documented in README):
//   *     any run of characters except '/'      **   any run of characters, '/' included
//   ?     one character except '/'              [...] (literally these 5 chars) any generic
//                                                     instantiation: '[' ... ']' balanced
//   \x    the character x literally (\* \? \\)
// Every other character, '(' ')' '[' ']' '.' included, is literal. A pattern without an
// unescaped * ? or [...] is an exact name.
class NamePattern {
 public:
  static NamePattern parse(std::string_view text);  // throws gate::Error on a trailing '\'
  bool matches(std::string_view name) const;
  bool is_glob() const { return glob_; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  bool glob_ = false;
};

class FunctionTable {
 public:
  // From .symtab; when the binary is stripped, from .gopclntab. Throws gate::Error when neither
  // gives functions ("not a Go binary or unknown pclntab layout ...").
  static FunctionTable from_elf(const elf::ElfFile& elf);
  explicit FunctionTable(std::vector<Function> functions, std::string source = "symtab");

  const std::vector<Function>& all() const { return functions_; }  // sorted by address
  const std::string& source() const { return source_; }            // "symtab" or "gopclntab"
  const Function* find_exact(std::string_view name) const;
  const Function* find_containing(uint64_t address) const;  // function whose range holds address
  // The k names closest to `name` (edit distance, with a bonus for shared package and suffix).
  std::vector<std::string> nearest(std::string_view name, size_t k = 5) const;

 private:
  std::vector<Function> functions_;
  std::string source_;
};

// Resolves the patterns in order, de-duplicated, preserving first-match order. An exact name
// that does not exist, or a glob that matches nothing, throws gate::Error (exit 2) naming the
// pattern and listing the nearest matches.
std::vector<Function> resolve(const FunctionTable& table, const std::vector<std::string>& patterns);

}  // namespace gate::analysis
