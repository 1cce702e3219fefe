// list_functions: the function table filtered by patterns, with probe sites and inlined sites.
#include "plan/function_list.hpp"

#include "elf/elf_file.hpp"
#include "plan/dwarf.hpp"

namespace gate::plan {

namespace {

bool any_matches(const std::vector<NamePattern>& pats, const std::string& name) {
  for (const auto& p : pats)
    if (p.matches(name)) return true;
  return false;
}

// Without patterns, the Go runtime and standard internals are left out: nobody declares them.
bool listed(const std::vector<NamePattern>& pats, const std::string& name) {
  if (pats.empty()) return name.rfind("runtime.", 0) != 0 && name.rfind("internal/", 0) != 0;
  return any_matches(pats, name);
}

}  // namespace

FunctionList list_functions(const std::string& binary, const std::vector<std::string>& patterns, bool with_args) {
  const auto elf = elf::ElfFile::open(binary);
  const auto table = analysis::FunctionTable::from_elf(elf);
  const Inlining inlining = load_inlining(elf);
  std::vector<NamePattern> pats;
  for (const auto& m : patterns) pats.push_back(NamePattern::parse(m));
  FunctionList out;
  out.total = table.all().size();
  out.symbol_source = table.source();
  out.dwarf_note = inlining.note;
  std::optional<analysis::ArgIndex> args;
  if (with_args) {
    args = analysis::ArgIndex::load(elf);
    if (!args) out.args_note = "DWARF absent: arguments cannot be listed (build without -ldflags=-w / -s)";
  }
  for (const auto& fn : table.all()) {
    if (!listed(pats, fn.name)) continue;
    ListedFunction l{fn, analysis::find_probe_sites(elf, table, fn), std::nullopt};
    if (inlining.index) l.inlined = inlining.index->sites_of(fn.name);
    if (args)
      if (const auto* a = args->find(fn.name)) l.args = *a;
    out.functions.push_back(std::move(l));
  }
  if (inlining.index && !pats.empty()) {
    for (const auto& name : inlining.index->inlined_only())
      if (!table.find_exact(name) && any_matches(pats, name))
        out.inlined_only.emplace_back(name, inlining.index->count_of(name));
  }
  return out;
}

}  // namespace gate::plan
