// libFuzzer target over every reader gate runs on a user's binary: ElfFile::from_bytes, the
// function table (.symtab, else .gopclntab), probe-site placement (Capstone) and the DWARF
// reader (InlineIndex). Bad input may only ever end in gate::Error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/functions.hpp"
#include "analysis/inlining.hpp"
#include "analysis/probe_sites.hpp"
#include "common/error.hpp"
#include "elf/elf_file.hpp"

namespace {

using namespace gate;

// A few functions of every table: first, last, a middle one, and the ones named like Go's own
// (the morestack target and a main function), so the probe-site logic runs on real-looking code.
std::vector<const analysis::Function*> picks(const analysis::FunctionTable& table) {
  std::vector<const analysis::Function*> out;
  const auto& all = table.all();
  if (all.empty()) return out;
  out = {&all.front(), &all[all.size() / 2], &all.back()};
  for (const char* name : {"main.main", "main.f", "runtime.morestack_noctxt"})
    if (const auto* f = table.find_exact(name)) out.push_back(f);
  return out;
}

void run_function_table(const elf::ElfFile& elf) {
  try {
    const auto table = analysis::FunctionTable::from_elf(elf);
    for (const auto* fn : picks(table)) {
      for (auto policy : {analysis::EntryPolicy::kAuto, analysis::EntryPolicy::kFirstInstruction}) {
        const auto ps = analysis::find_probe_sites(elf, table, *fn, policy);
        for (const auto& r : ps.returns) (void)elf.file_offset(r.address);
      }
      (void)table.find_containing(fn->address + fn->size / 2);
    }
  } catch (const Error&) {
    return;
  }
  const auto table = analysis::FunctionTable::from_elf(elf);  // did not throw above
  for (const char* pattern : {"main.*", "**.(*T).M", "pkg.Map[...]", "runtime.morestack_noctxt"}) {
    try {
      (void)analysis::resolve(table, {pattern});
    } catch (const Error&) {  // no match: the error lists the nearest names
    }
  }
}

void run_dwarf(const elf::ElfFile& elf) {
  try {
    const auto index = analysis::InlineIndex::load(elf);
    if (!index) return;
    for (const auto& name : index->inlined_only()) {
      for (const auto& site : index->sites_of(name)) (void)analysis::describe(site);
      (void)index->has_out_of_line_copy(name);
    }
    (void)index->g_stack_hi_offset();
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto elf = elf::ElfFile::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz-input");
    (void)elf.go_version();
    (void)elf.go_build_id();
    (void)elf.gnu_build_id();
    run_function_table(elf);
    run_dwarf(elf);
  } catch (const Error&) {
  }
  return 0;
}
