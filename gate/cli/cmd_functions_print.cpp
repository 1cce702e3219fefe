// gate functions' printouts, as a table or JSON: a Go binary's functions (plan::list_functions), and
// with --native or --library NAME the C and C++ functions of the binary or of a shared library it
// loads (plan::list_native_functions), each with how gate run would probe it. Printing only.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "common/format.hpp"
#include "plan/function_list.hpp"
#include "plan/native_plan.hpp"

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

std::string returns_of(const FunctionInfo& f) {
  if (!f.measurable) return "-";
  if (f.entry_placement.ends_with("uretprobe")) return "uretprobe";
  return std::to_string(f.return_addresses.size()) + " RET";
}

}  // namespace

void print_functions(const plan::FunctionList& list, bool json) {
  if (json) print_json(list);
  else print_table(list);
}

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
