// Native function symbols: .symtab and .dynsym read over the section bytes (64-bit
// little-endian ELF, the only kind gate attaches to), C++ names demangled by the C++ runtime's
// own demangler (abi::__cxa_demangle), and fnmatch(3) globs over the demangled names.
#include "analysis/native_functions.hpp"

#include <cxxabi.h>
#include <elf.h>
#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "common/error.hpp"

namespace gate::analysis {

namespace {

struct RawSymbol {
  std::string name;
  uint64_t address = 0, size = 0;
  unsigned type = 0;
  bool dynamic = false;
};

std::string_view c_string_at(std::span<const uint8_t> strtab, uint32_t off) {
  if (off >= strtab.size()) return {};
  const char* p = reinterpret_cast<const char*>(strtab.data()) + off;
  return {p, strnlen(p, strtab.size() - off)};
}

// Defined function-like symbols of one symbol table. versym (may be empty): .gnu.version, whose
// hidden bit marks a non-default version (memcpy@GLIBC_2.2.5 beside memcpy@@GLIBC_2.14).
void read_table(const elf::Section& syms, std::span<const uint8_t> strtab, std::span<const uint8_t> versym,
                bool dynamic, std::vector<RawSymbol>& out) {
  const size_t n = syms.bytes.size() / sizeof(Elf64_Sym);
  for (size_t i = 0; i < n; ++i) {
    Elf64_Sym s;
    std::memcpy(&s, syms.bytes.data() + i * sizeof s, sizeof s);
    const unsigned type = ELF64_ST_TYPE(s.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || s.st_value == 0) continue;
    if (!versym.empty() && (i + 1) * 2 <= versym.size()) {
      uint16_t v;
      std::memcpy(&v, versym.data() + i * 2, 2);
      if (v & 0x8000) continue;
    }
    const auto name = c_string_at(strtab, s.st_name);
    if (name.empty()) continue;
    out.push_back({std::string(name), s.st_value, s.st_size, type, dynamic});
  }
}

std::optional<elf::Section> section_of_type(const elf::ElfFile& elf, uint32_t type) {
  for (const auto& s : elf.sections())
    if (s.type == type) return s;
  return std::nullopt;
}

std::span<const uint8_t> bytes_of(const elf::ElfFile& elf, const char* name) {
  auto s = elf.section(name);
  return s ? s->bytes : std::span<const uint8_t>{};
}

// "ns::work(int) const" -> "ns::work": the demangled name up to its top-level parameter list.
std::string without_parameters(const std::string& name) {
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (c == '(' && depth == 0) {
      // "(anonymous namespace)::f(int)": a parenthesis that is part of the name, not parameters.
      if (name.compare(i, 21, "(anonymous namespace)") == 0) {
        i += 20;
        continue;
      }
      return name.substr(0, i);
    }
  }
  return name;
}

}  // namespace

std::string demangle(const std::string& symbol) {
  if (!symbol.starts_with("_Z")) return symbol;
  int status = 0;
  char* out = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !out) return symbol;
  std::string s(out);
  std::free(out);
  return s;
}

NativeSymbols native_functions(const elf::ElfFile& elf) {
  std::vector<RawSymbol> raw;
  NativeSymbols out;
  if (auto symtab = section_of_type(elf, SHT_SYMTAB)) {
    out.has_symtab = true;
    read_table(*symtab, bytes_of(elf, ".strtab"), {}, false, raw);
  }
  if (auto dynsym = section_of_type(elf, SHT_DYNSYM))
    read_table(*dynsym, bytes_of(elf, ".dynstr"), bytes_of(elf, ".gnu.version"), true, raw);
  // A Go binary's own functions lie between runtime.text and runtime.etext: they are Go's, never native.
  uint64_t go_lo = 0, go_hi = 0;
  for (const auto& s : elf.function_symbols()) {
    if (s.name == "runtime.text") go_lo = s.address;
    if (s.name == "runtime.etext") go_hi = s.address;
  }
  // One function per address; its .symtab entry wins for the size, .dynsym says it is exported.
  std::map<uint64_t, NativeFunction> by_address;
  std::set<std::string> ifuncs;
  for (const auto& r : raw) {
    if (go_hi > go_lo && r.address >= go_lo && r.address < go_hi) continue;
    if (r.type == STT_GNU_IFUNC) {
      ifuncs.insert(r.name);
      continue;
    }
    auto [it, fresh] = by_address.try_emplace(r.address);
    NativeFunction& f = it->second;
    if (fresh) {
      f.symbol = r.name;
      f.name = demangle(r.name);
      f.cxx = r.name.starts_with("_Z") || r.name.starts_with("_R");
      f.address = r.address;
    }
    else if (r.name != f.symbol && std::find(f.aliases.begin(), f.aliases.end(), demangle(r.name)) == f.aliases.end())
      f.aliases.push_back(demangle(r.name));
    f.size = std::max(f.size, r.size);
    f.dynamic = f.dynamic || r.dynamic;
  }
  std::map<std::string, int> uses;
  for (const auto& [addr, f] : by_address) ++uses[f.name];
  for (auto& [addr, f] : by_address) {
    // Two symbols, one demangled name (a C++ destructor's complete D1 and deleting D0 variants,
    // static functions of two files): results need names that tell them apart.
    if (uses[f.name] > 1) f.name += " [" + f.symbol + "]";
    out.functions.push_back(std::move(f));
  }
  std::sort(out.functions.begin(), out.functions.end(),
            [](const NativeFunction& a, const NativeFunction& b) { return a.name < b.name; });
  out.ifuncs.assign(ifuncs.begin(), ifuncs.end());
  return out;
}

bool native_is_glob(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      ++i;
      continue;
    }
    if (pattern[i] == '*' || pattern[i] == '?' || pattern[i] == '[') return true;
  }
  return false;
}

bool native_matches(std::string_view pattern, const NativeFunction& fn) {
  const std::string p(pattern);
  auto m = [&](const std::string& name) { return fnmatch(p.c_str(), name.c_str(), 0) == 0; };
  const size_t tag = fn.name.ends_with("]") ? fn.name.rfind(" [") : std::string::npos;
  const std::string plain = tag == std::string::npos ? fn.name : fn.name.substr(0, tag);
  return m(fn.name) || m(plain) || m(without_parameters(plain)) || m(fn.symbol);
}

std::vector<NativeFunction> resolve_native(const NativeSymbols& symbols, const std::vector<std::string>& patterns,
                                           const std::string& file) {
  std::vector<NativeFunction> out;
  std::set<uint64_t> seen;
  for (const auto& p : patterns) {
    size_t matched = 0;
    for (const auto& f : symbols.functions) {
      const auto alias = std::find_if(f.aliases.begin(), f.aliases.end(),
                                      [&](const std::string& a) { return fnmatch(p.c_str(), a.c_str(), 0) == 0; });
      if (!native_matches(p, f) && alias == f.aliases.end()) continue;
      ++matched;
      if (!seen.insert(f.address).second) continue;
      out.push_back(f);
      // Named as declared: `fopen`, not the alias that happened to come first in the table.
      if (!native_matches(p, f)) out.back().name = *alias;
    }
    if (matched) continue;
    std::string cause = native_is_glob(p) ? "the glob \"" + p + "\" matches no native function"
                                          : "has no native function \"" + p + "\"";
    const std::string plain = p.substr(0, p.find_first_of("*?[("));
    if (std::find(symbols.ifuncs.begin(), symbols.ifuncs.end(), p) != symbols.ifuncs.end()) {
      throw Error::make(file, "\"" + p + "\" is an indirect function (STT_GNU_IFUNC): its symbol is the resolver that "
                        "picks an implementation once at load, not the code that runs per call",
                        "declare the implementation the resolver picks on this CPU (e.g. "
                        "__memcpy_avx_unaligned_erms for memcpy; `gate functions` lists them where the library has "
                        "a symbol table), or a function of your own that calls it");
    }
    std::string near;
    size_t shown = 0;
    for (const auto& f : symbols.functions) {
      if (shown == 5 || plain.empty()) break;
      if (f.name.find(plain) != std::string::npos) near += (shown++ ? ", " : "") + f.name;
    }
    if (!near.empty()) cause += " (similar: " + near + ")";
    if (!symbols.has_symtab) cause += "; the file has no symbol table (stripped): only exported functions are known";
    throw Error::make(file, cause,
                      "list the names with `gate functions BINARY --native` (or `--library LIBRARY`); C++ names are "
                      "matched demangled (e.g. \"ns::Widget::work\" or \"ns::*::work*\")");
  }
  return out;
}

}  // namespace gate::analysis
