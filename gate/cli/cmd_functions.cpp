// `gate functions BINARY [--match GLOB]`: the functions a user can declare, with the probe
// placement gate would use and what it costs; the command to run before writing gate.yaml.
// The listing comes from plan::list_functions; this file parses the flags and prints.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "elf/elf_file.hpp"
#include "plan/function_list.hpp"

namespace gate::cli {

namespace {

std::string placement_of(const analysis::ProbeSites& ps) { return ps.measurable ? analysis::to_string(ps.placement) : "-"; }
std::string cost_of(const analysis::ProbeSites& ps) { return ps.measurable ? analysis::to_string(ps.entry.cost) : "-"; }

nlohmann::json args_json(const analysis::FunctionArgs& f) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : f.args) {
    nlohmann::json regs = nlohmann::json::array();
    for (const auto& r : a.registers) regs.push_back(analysis::abi_register_name(r.abi_index));
    out.push_back({{"name", a.name}, {"type", a.type}, {"kind", analysis::to_string(a.kind)}, {"size", a.size},
                   {"registers", regs}, {"where", a.where}});
  }
  return out;
}

// "b []uint8 in RAX,RBX,RCX": one argument, as a user writes bucket_by from it.
std::string describe_arg(const analysis::Argument& a) {
  return a.name + " " + (a.type.empty() ? "?" : a.type) + (a.registers.empty() ? " (" + a.where + ")" : " in " + a.where);
}

void print_json(const plan::FunctionList& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& l : list.functions) {
    nlohmann::json inlined_at = nlohmann::json::array();
    if (l.inlined)
      for (const auto& s : *l.inlined) inlined_at.push_back(analysis::describe(s));
    out.push_back({{"name", l.function.name},
                   {"address", l.function.address},
                   {"size", l.function.size},
                   {"measurable", l.sites.measurable},
                   {"reason", l.sites.reason},
                   {"returns", l.sites.returns.size()},
                   {"entry_placement", placement_of(l.sites)},
                   {"entry_instruction", l.sites.entry.instruction},
                   {"entry_cost_class", cost_of(l.sites)},
                   {"inlined", l.inlined ? nlohmann::json(l.inlined->size()) : nlohmann::json(nullptr)},
                   {"inlined_at", inlined_at}});
    if (l.args) out.back()["args"] = args_json(*l.args);
  }
  std::puts(out.dump(1).c_str());
}

void print_table(const plan::FunctionList& list) {
  size_t w = 8;
  for (const auto& l : list.functions) w = std::max(w, l.function.name.size());
  std::printf("%s  %8s  %4s  %7s  %s\n", pad_right("function", w).c_str(), "size", "RETs", "inlined", "entry probe");
  for (const auto& l : list.functions) {
    const auto& ps = l.sites;
    const std::string probe = ps.measurable ? placement_of(ps) + " " + ps.entry.instruction + " (" + cost_of(ps) + ")"
                                            : "not measurable: " + ps.reason;
    std::printf("%s  %8llu  %4zu  %7s  %s\n", pad_right(l.function.name, w).c_str(),
                static_cast<unsigned long long>(l.function.size), ps.returns.size(),
                l.inlined ? std::to_string(l.inlined->size()).c_str() : "-", probe.c_str());
    if (l.args)
      for (const auto& a : l.args->args) std::printf("    arg %s\n", describe_arg(a).c_str());
  }
  std::fprintf(stderr, "gate: %zu of %zu functions (symbols from %s)\n", list.functions.size(), list.total,
               list.symbol_source.c_str());
}

}  // namespace

std::function<int()> add_functions(CLI::App& app, const Globals& g) {
  struct Args {
    std::string binary;
    std::vector<std::string> match;
    bool json = false;
    bool args = false;
    bool native = false;
    std::string library;
    std::string native_returns = "auto";
  };
  auto a = std::make_shared<Args>();
  app.add_option("binary", a->binary, "Go binary (ELF) to list; a program that is not Go lists its C/C++ functions")->required();
  app.add_option("-m,--match", a->match, "Only names matching this glob (repeatable); default: all but runtime")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--json", a->json, "Machine-readable output");
  app.add_flag("--args", a->args,
               "Also list each function's arguments (DWARF): name, Go type and the registers holding it at entry");
  app.add_flag("--native", a->native, "List the binary's C and C++ functions (names demangled) instead of Go's");
  app.add_option("--library", a->library,
                 "List the C/C++ functions of this shared library (file name, searched as ld.so would for BINARY, or path)");
  app.add_option("--native-returns", a->native_returns, "auto, uretprobe or ret_sites (as native_returns: in gate.yaml)");
  app.footer(
      "Glob syntax: * any run without '/', ** any run, ? one char, [...] any generic instantiation,\n"
      "\\x a literal x; everything else ('(', '*' after '\\', '.', '[') is literal.\n"
      "Examples:\n"
      "  gate functions bin/shop --match 'example.com/shop.*'\n"
      "  gate functions bin/shop --match 'example.com/shop.(\\*Cart).*' --json\n"
      "  gate functions bin/shop --match 'example.com/shop.(*Store).Get' --args   # for bucket_by");
  return [a, &g]() -> int {
    (void)g;
    // A program that is not Go has only native functions: list those.
    if (a->native || !a->library.empty() || elf::ElfFile::open(a->binary).go_version().empty())
      return print_native_functions(a->binary, a->library, a->match, a->json, a->native_returns);
    const plan::FunctionList list = plan::list_functions(a->binary, a->match, a->args);
    if (a->json) print_json(list);
    else print_table(list);
    if (!list.dwarf_note.empty()) std::fprintf(stderr, "gate: %s\n", list.dwarf_note.c_str());
    if (!list.args_note.empty()) std::fprintf(stderr, "gate: %s\n", list.args_note.c_str());
    for (const auto& [name, n] : list.inlined_only)
      std::fprintf(stderr, "gate: %s exists only inlined (%zu site%s): no entry to probe; add //go:noinline to time it\n",
                   name.c_str(), n, n == 1 ? "" : "s");
    if (list.functions.empty() && !a->match.empty()) {
      throw Error::make("--match", "matched no function in " + a->binary,
                        "check the package path; try a broader glob such as 'example.com/**'");
    }
    return 0;
  };
}

}  // namespace gate::cli
