// The flags' rules, kept per CLI::Option as each is declared, and the reproduce lines read from them.
// A flag that decides what is measured or how it is judged is carried; one that only says where
// output goes is left out, with the reason (at its declaration).
#include "cli/flags.hpp"

#include <unordered_map>

namespace gate::cli {

namespace {

struct Kept {
  Rerun rule;
  std::string names;  // o's names when declared: an address a destroyed app's option had is another option's
};

// By option: CLI11 keeps nothing of ours on an Option, and an Option lives at one address as long
// as its app. A test builds many apps: an entry whose option is gone stays, and a later option at
// its address counts as declared only with the same names (the same declaration, run again).
std::unordered_map<const CLI::Option*, Kept>& kept() {
  static std::unordered_map<const CLI::Option*, Kept> rules;
  return rules;
}

std::string names_of(const CLI::Option& o) { return o.get_name(true, true); }

}  // namespace

CLI::Option* remember(CLI::Option* o, Rerun rule) {
  kept().insert_or_assign(o, Kept{rule, names_of(*o)});
  return o;
}

CLI::Option* flag_callback(CLI::App& app, const std::string& name, Rerun rule, std::function<void()> on,
                           const std::string& help) {
  return remember(app.add_flag_callback(name, std::move(on), help), rule);
}

const Rerun* rule_of(const CLI::Option& o) {
  const auto it = kept().find(&o);
  return it == kept().end() || it->second.names != names_of(o) ? nullptr : &it->second.rule;
}

std::string spelled(const CLI::Option& o) {
  const Rerun* rule = rule_of(o);
  if (rule && rule->spelling()) return rule->spelling();
  if (!o.get_lnames().empty()) return "--" + o.get_lnames().front();
  if (!o.get_snames().empty()) return "-" + o.get_snames().front();
  return o.get_name(true);
}

std::vector<std::string> rerun_args(const CLI::App& command) {
  std::vector<std::string> out = {command.get_name()};
  for (const CLI::Option* o : command.get_options()) {
    if (o == command.get_help_ptr() || o->count() == 0) continue;
    const Rerun* rule = rule_of(*o);
    if (rule && rule->kind() == Rerun::Kind::kLeftOut) continue;
    const std::string name = spelled(*o);
    if (o->get_expected_max() == 0) {  // a switch (a flag without a value)
      out.push_back(name);
      continue;
    }
    const auto& values = o->results();
    if (values.empty()) continue;
    // One value a flag takes its last (CLI11's default), a list every value, each after its flag.
    const bool list = o->get_items_expected_max() > 1;
    const size_t first = list ? 0 : values.size() - 1;
    for (size_t i = first; i < values.size(); ++i) {
      if (!o->get_positional()) out.push_back(name);
      out.push_back(values[i]);
    }
  }
  return out;
}

}  // namespace gate::cli
