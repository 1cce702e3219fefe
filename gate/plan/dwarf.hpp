// The one loader of a binary's inlining index (DWARF) for `gate run` and `gate functions`: the
// index when the binary has readable DWARF, else a note saying why inlining cannot be checked.
#pragma once

#include <optional>
#include <string>

#include "analysis/inlining.hpp"
#include "elf/elf_file.hpp"

namespace gate::plan {

struct Inlining {
  std::optional<analysis::InlineIndex> index;  // empty: no DWARF, or unreadable
  std::string note;                            // why it is empty ("" when loaded)
};

// Never throws for DWARF problems: a binary without (readable) DWARF is measured all the same.
Inlining load_inlining(const elf::ElfFile& elf);

}  // namespace gate::plan
