// The Go runtime's own function table (.gopclntab): names and entry addresses of every Go
// function, kept even in stripped binaries (-ldflags=-s), which is what makes those traceable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/functions.hpp"
#include "elf/elf_file.hpp"

namespace gate::analysis {

// The pclntab layouts gate reads, named by the first Go release that wrote them.
enum class PclntabVersion { kGo116, kGo118, kGo120 };
const char* to_string(PclntabVersion v);  // "go1.16", "go1.18", "go1.20"

struct Pclntab {
  PclntabVersion version = PclntabVersion::kGo120;
  uint64_t text_start = 0;           // base of the 32-bit entry offsets (Go >= 1.18)
  // Sorted by address. Names are spelled as in the ELF symbol table ('·' -> '.'); Go 1.18-1.19
  // linkers wrote every bracketed part as "[...]" ("pkg.Map[...]" for each instantiation).
  std::vector<Function> functions;
};

// True when the binary has a pclntab: the .gopclntab section (.data.rel.ro.gopclntab in PIE builds),
// or, after an external link merged it away, a valid header found inside .data.rel.ro / .rodata.
bool has_pclntab(const elf::ElfFile& elf);

// Parses the table. A function's size is where its pc-to-SP table ends (exactly the code, no
// padding); the next function's entry when that table is missing. Throws gate::Error naming the
// file when there is no table, its magic is unknown (a Go release newer than this gate: refuse
// rather than guess), or an offset points outside the section.
Pclntab read_pclntab(const elf::ElfFile& elf);

}  // namespace gate::analysis
