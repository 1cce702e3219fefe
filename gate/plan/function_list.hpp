// What `gate functions` shows: the functions of a binary a user can declare, each with the probe
// placement gate would use and its inlined copies, and the names that exist only inlined. Data
// only; the CLI prints it as a table or JSON.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/args.hpp"
#include "analysis/functions.hpp"
#include "analysis/inlining.hpp"
#include "analysis/probe_sites.hpp"

namespace gate::plan {

struct ListedFunction {
  analysis::Function function;
  analysis::ProbeSites sites;
  std::optional<std::vector<analysis::InlineSite>> inlined;  // nullopt: DWARF cannot say
  std::optional<analysis::FunctionArgs> args;  // with_args and DWARF describes the function
};

struct FunctionList {
  std::vector<ListedFunction> functions;  // those the patterns match (no patterns: all but runtime/internal)
  size_t total = 0;                       // functions in the binary
  std::string symbol_source;              // "symtab" or "gopclntab"
  std::string dwarf_note;                 // why inlining cannot be checked ("" when it can)
  std::string args_note;                  // with_args: why arguments cannot be listed ("" when they can)
  // Names the patterns match that have no symbol because every call was inlined, with their site count.
  std::vector<std::pair<std::string, size_t>> inlined_only;
};

// Throws gate::Error when the binary cannot be read or a pattern is malformed.
// with_args: also each function's arguments from DWARF (analysis/args.hpp).
FunctionList list_functions(const std::string& binary, const std::vector<std::string>& patterns,
                            bool with_args = false);

}  // namespace gate::plan
