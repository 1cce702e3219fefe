// Native (C, C++) functions of an ELF file: its defined function symbols from .symtab and
// .dynsym, C++ names demangled, and the glob users write over those names in gate.yaml.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_file.hpp"

namespace gate::analysis {

struct NativeFunction {
  // Demangled ("shapes::Circle::area() const"), else the symbol itself; when two functions of the
  // file share it, followed by " [symbol]" ("shapes::Circle::~Circle() [_ZN6shapes6CircleD0Ev]").
  std::string name;
  std::string symbol;  // the ELF symbol ("_ZNK6shapes6Circle4areaEv")
  std::vector<std::string> aliases;  // other symbols at the same address (fopen64 for fopen), demangled
  uint64_t address = 0;
  uint64_t size = 0;     // 0 when the symbol has no size (hand-written assembly)
  // A mangled C++ or Rust name (Itanium "_Z...", which Rust's legacy mangling uses too, or Rust's
  // v0 "_R..."): code an exception or a panic may unwind through.
  bool cxx = false;
  bool dynamic = false;  // found in .dynsym (exported), not only .symtab
};

// "_ZN2ns4workEi" -> "ns::work(int)"; the symbol itself when it is not a mangled C++ name.
std::string demangle(const std::string& symbol);

// Every defined function (STT_FUNC) of the file, one per address, sorted by name. Skips the Go
// functions of a Go binary (those inside [runtime.text, runtime.etext)), symbol versions that are
// not the default one, and indirect functions (STT_GNU_IFUNC: the symbol is a resolver that runs
// once at load, not the implementation; their names are in ifuncs).
struct NativeSymbols {
  std::vector<NativeFunction> functions;
  std::vector<std::string> ifuncs;
  bool has_symtab = false;  // false: stripped, only exported (.dynsym) functions are known
};
NativeSymbols native_functions(const elf::ElfFile& elf);

// A glob over native names (fnmatch(3) without FNM_PATHNAME: '*' and '?' match any character, '/'
// and ':' included; [...] is a set; '\' escapes). A pattern matches a function when it matches its
// demangled name whole, or the name without its parameter list ("ns::work" for "ns::work(int)"),
// or its raw symbol.
bool native_matches(std::string_view pattern, const NativeFunction& fn);
bool native_is_glob(std::string_view pattern);

// Resolves the patterns in order, de-duplicated by address. An exact name that matches nothing,
// or a glob that matches nothing, throws gate::Error naming the file and the nearest names.
std::vector<NativeFunction> resolve_native(const NativeSymbols& symbols, const std::vector<std::string>& patterns,
                                           const std::string& file);

}  // namespace gate::analysis
