// `gate functions BINARY [--match GLOB]`: the functions a user can declare, with the probe
// placement gate would use and what it costs; the command to run before writing gate.yaml.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "analysis/inlining.hpp"
#include "analysis/probe_sites.hpp"
#include "cli/commands.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "elf/elf_file.hpp"

namespace gate::cli {

std::function<int()> add_functions(CLI::App& app, const Globals& g) {
  struct Args {
    std::string binary;
    std::vector<std::string> match;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  app.add_option("binary", a->binary, "Go binary (ELF) to list")->required();
  app.add_option("-m,--match", a->match, "Only names matching this glob (repeatable); default: all but runtime")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--json", a->json, "Machine-readable output");
  app.footer(
      "Glob syntax: * any run without '/', ** any run, ? one char, [...] any generic instantiation,\n"
      "\\x a literal x; everything else ('(', '*' after '\\', '.', '[') is literal.\n"
      "Examples:\n"
      "  gate functions bin/shop --match 'example.com/shop.*'\n"
      "  gate functions bin/shop --match 'example.com/shop.(\\*Cart).*' --json");
  return [a, &g]() -> int {
    (void)g;
    const auto elf = elf::ElfFile::open(a->binary);
    const auto table = analysis::FunctionTable::from_elf(elf);
    // Inlined copies are calls gate cannot time: show how many each function has.
    std::optional<analysis::InlineIndex> inlining;
    std::string dwarf_note;
    try {
      inlining = analysis::InlineIndex::load(elf);
      if (!inlining) dwarf_note = "DWARF absent (built with -ldflags=-w or stripped): inlining cannot be checked";
    } catch (const Error& e) {
      dwarf_note = std::string("DWARF unreadable: inlining cannot be checked: ") + e.what();
    }
    std::vector<analysis::NamePattern> pats;
    for (const auto& m : a->match) pats.push_back(analysis::NamePattern::parse(m));
    nlohmann::json out = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    size_t matched = 0;
    for (const auto& fn : table.all()) {
      bool keep = pats.empty() ? fn.name.rfind("runtime.", 0) != 0 && fn.name.rfind("internal/", 0) != 0
                               : false;
      for (const auto& p : pats) keep = keep || p.matches(fn.name);
      if (!keep) continue;
      ++matched;
      const auto ps = analysis::find_probe_sites(elf, table, fn);
      std::string placement = ps.measurable ? analysis::to_string(ps.placement) : "-";
      std::string cost = ps.measurable ? analysis::to_string(ps.entry.cost) : "-";
      const auto inlined_sites = inlining ? inlining->sites_of(fn.name) : std::vector<analysis::InlineSite>{};
      if (a->json) {
        nlohmann::json inlined_at = nlohmann::json::array();
        for (const auto& s : inlined_sites) inlined_at.push_back(analysis::describe(s));
        out.push_back({{"name", fn.name},
                       {"address", fn.address},
                       {"size", fn.size},
                       {"measurable", ps.measurable},
                       {"reason", ps.reason},
                       {"returns", ps.returns.size()},
                       {"entry_placement", placement},
                       {"entry_instruction", ps.entry.instruction},
                       {"entry_cost_class", cost},
                       {"inlined", inlining ? nlohmann::json(inlined_sites.size()) : nlohmann::json(nullptr)},
                       {"inlined_at", inlined_at}});
      } else {
        rows.push_back({fn.name, std::to_string(fn.size), std::to_string(ps.returns.size()),
                        inlining ? std::to_string(inlined_sites.size()) : "-",
                        ps.measurable ? placement + " " + ps.entry.instruction + " (" + cost + ")"
                                      : "not measurable: " + ps.reason});
      }
    }
    if (a->json) {
      std::puts(out.dump(1).c_str());
    } else {
      size_t w = 8;
      for (const auto& r : rows) w = std::max(w, r[0].size());
      std::printf("%s  %8s  %4s  %7s  %s\n", pad_right("function", w).c_str(), "size", "RETs", "inlined",
                  "entry probe");
      for (const auto& r : rows)
        std::printf("%s  %8s  %4s  %7s  %s\n", pad_right(r[0], w).c_str(), r[1].c_str(), r[2].c_str(), r[3].c_str(),
                    r[4].c_str());
      std::fprintf(stderr, "gate: %zu of %zu functions (symbols from %s)\n", matched, table.all().size(),
                   table.source().c_str());
    }
    if (!dwarf_note.empty()) std::fprintf(stderr, "gate: %s\n", dwarf_note.c_str());
    // Functions the patterns name that have no symbol because every call was inlined.
    if (inlining && !pats.empty()) {
      for (const auto& name : inlining->inlined_only()) {
        if (table.find_exact(name)) continue;
        bool hit = false;
        for (const auto& p : pats) hit = hit || p.matches(name);
        const size_t n = inlining->count_of(name);
        if (hit)
          std::fprintf(stderr, "gate: %s exists only inlined (%zu site%s): no entry to probe; add //go:noinline to time it\n",
                       name.c_str(), n, n == 1 ? "" : "s");
      }
    }
    if (matched == 0 && !pats.empty()) {
      throw Error::make("--match", "matched no function in " + a->binary,
                        "check the package path; try a broader glob such as 'example.com/**'");
    }
    return 0;
  };
}

}  // namespace gate::cli
