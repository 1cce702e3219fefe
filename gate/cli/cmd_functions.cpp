// `gate functions BINARY [--match GLOB]`: the functions a user can declare, with the probe
// placement gate would use and what it costs; the command to run before writing gate.yaml.
// The listing comes from plan::list_functions; this file parses the flags, cmd_functions_print.cpp
// prints.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "common/error.hpp"
#include "elf/elf_file.hpp"
#include "plan/function_list.hpp"

namespace gate::cli {

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
  const Rerun no_report = Rerun::kNoReport;
  option(app, "binary", no_report, a->binary,
         "Go binary (ELF) to list; a program that is not Go lists its C/C++ functions")
      ->required();
  option(app, "-m,--match", no_report, a->match, "Only names matching this glob (repeatable); default: all but runtime")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  flag(app, "--json", no_report, a->json, "Machine-readable output");
  flag(app, "--args", no_report, a->args,
       "Also list each function's arguments (DWARF): name, Go type and the registers holding it at entry");
  flag(app, "--native", no_report, a->native, "List the binary's C and C++ functions (names demangled) instead of Go's");
  option(app, "--library", no_report, a->library,
         "List the C/C++ functions of this shared library (file name, searched as ld.so would for BINARY, or path)");
  option(app, "--native-returns", no_report, a->native_returns,
         "auto, uretprobe or ret_sites (as native_returns: in gate.yaml)");
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
    print_functions(list, a->json);
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
