// `gate functions BINARY --native` and `--library NAME`: the C and C++ functions of the binary or
// of a shared library it loads, each with how gate run would probe it. Printing only; the listing
// is plan::list_native_functions.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "common/format.hpp"
#include "plan/native_plan.hpp"

namespace gate::cli {

namespace {

std::string returns_of(const FunctionInfo& f) {
  if (!f.measurable) return "-";
  if (f.entry_placement.ends_with("uretprobe")) return "uretprobe";
  return std::to_string(f.return_addresses.size()) + " RET";
}

}  // namespace

int print_native_functions(const std::string& binary, const std::string& library,
                           const std::vector<std::string>& match, bool json, const std::string& native_returns) {
  plan::NativeOptions opts;
  opts.returns = plan::parse_native_returns(native_returns);
  if (const char* v = std::getenv("LD_LIBRARY_PATH")) opts.ld_library_path = v;
  const auto list = plan::list_native_functions(binary, library, match, opts);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : list.functions)
      out.push_back({{"name", f.name}, {"address", f.entry_address}, {"size", f.size}, {"measurable", f.measurable},
                     {"reason", f.not_measurable_reason}, {"probe", f.entry_placement},
                     {"entry_instruction", f.entry_instruction}, {"entry_cost_class", f.entry_cost_class},
                     {"returns", returns_of(f)}, {"file", list.file}});
    std::puts(out.dump(1).c_str());
  } else {
    size_t w = 8;
    for (const auto& f : list.functions) w = std::max(w, f.name.size());
    std::printf("%s  %8s  %9s  %s\n", pad_right("function", w).c_str(), "size", "returns", "entry probe");
    for (const auto& f : list.functions) {
      const std::string probe = f.measurable ? f.entry_instruction + " (" + f.entry_cost_class + ")"
                                             : "not measurable: " + f.not_measurable_reason;
      std::printf("%s  %8llu  %9s  %s\n", pad_right(f.name, w).c_str(), static_cast<unsigned long long>(f.size),
                  returns_of(f).c_str(), probe.c_str());
    }
  }
  std::fprintf(stderr, "gate: %zu of %zu native functions of %s%s\n", list.functions.size(), list.total,
               list.file.c_str(), list.has_symtab ? "" : " (no symbol table: exported functions only)");
  return 0;
}

}  // namespace gate::cli
