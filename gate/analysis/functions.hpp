// Go function lookup: the table of every function in a binary (from .symtab; from .gopclntab when
// stripped) and the name patterns users write in gate.yaml (exact names and globs).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
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
// Every other character, '(' ')' '[' ']' '.' included, is literal. A '*' right after '(' is
// literal too: "(*" is how Go spells a pointer receiver, so `pkg.(*T).M` is an exact name (as a
// wildcard it would also match `pkg.(*SubT).M`). A pattern without an unescaped * ? or [...] is
// an exact name.
class NamePattern {
 public:
  static NamePattern parse(std::string_view text);  // throws gate::Error on a trailing '\'
  bool matches(std::string_view name) const;
  bool is_glob() const { return glob_; }
  const std::string& text() const { return text_; }
  // The name an exact pattern stands for, escapes removed ("main.a\*b" -> "main.a*b").
  const std::string& literal() const { return literal_; }

 private:
  struct Token {
    enum Kind : uint8_t { kChar, kRun, kRunWithSlash, kOne, kGeneric } kind = kChar;
    char c = 0;
  };
  bool match_from(size_t token, std::string_view name, size_t pos, std::vector<uint8_t>* failed) const;

  std::string text_;
  bool glob_ = false;
  std::string literal_;
  std::vector<Token> tokens_;
  std::string prefix_, suffix_;  // literal text before the first / after the last wildcard
  int runs_ = 0;                 // '*' and '**' count: backtracking needs a memo from 2 on
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
