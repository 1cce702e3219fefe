// The name patterns users write in gate.yaml and on the command line: exact Go symbol names and
// globs over them. Shared: analysis resolves them against a binary's functions, plan lists them,
// runner and verdict match a function's settings to its name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gate {

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

}  // namespace gate
