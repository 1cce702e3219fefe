// load_inlining over analysis::InlineIndex::load, with the messages both commands show.
#include "plan/dwarf.hpp"

#include "common/error.hpp"

namespace gate::plan {

Inlining load_inlining(const elf::ElfFile& elf) {
  Inlining r;
  try {
    r.index = analysis::InlineIndex::load(elf);
    if (!r.index) r.note = "DWARF absent: inlining cannot be checked";
  } catch (const Error& e) {
    r.note = std::string("DWARF unreadable: inlining cannot be checked: ") + e.what();
  }
  return r;
}

}  // namespace gate::plan
