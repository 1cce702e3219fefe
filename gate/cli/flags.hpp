// Every flag of every gate command is declared through option(), flag() or flag_callback(), each
// with its Rerun rule: whether a report's "reproduce:" line repeats it. The one place that calls
// CLI11's add_option and add_flag (tests/ci/cli_shape_test.py), so that no flag skips the question;
// the reproduce line (rerun_args) reads the rules back from the parsed command.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gate::cli {

// How a flag given on the command line repeats in a reproduce line. It has no default: a
// declaration without one does not compile (tests/cli/flags_test.cpp).
class Rerun {
 public:
  enum class Kind {
    kCarried,   // as given: the flag, then its value(s) (a switch: the flag alone)
    kLeftOut,   // not repeated: it chooses where output goes or what else is written, not the verdict
    kNoReport,  // a flag of a command that prints no report (run, record, history ...): no line to carry it
  };
  static const Rerun kCarried;
  static const Rerun kNoReport;
  // Carried, written so in the line ("-c" for -c,--config) rather than by its long name.
  static constexpr Rerun carried_as(const char* spelling) { return {Kind::kCarried, spelling, nullptr}; }
  // Left out, with why the verdict does not need it: a literal, so that the reason cannot be missing.
  template <size_t N>
  static constexpr Rerun left_out(const char (&why)[N]) {
    static_assert(N > 1, "say why a reproduce line leaves the flag out");
    return {Kind::kLeftOut, nullptr, why};
  }

  constexpr Kind kind() const { return kind_; }
  constexpr const char* spelling() const { return spelling_; }  // nullptr: the flag's own name
  constexpr const char* why() const { return why_; }            // kLeftOut's reason; else nullptr

 private:
  constexpr Rerun(Kind kind, const char* spelling, const char* why) : kind_(kind), spelling_(spelling), why_(why) {}
  Kind kind_;
  const char* spelling_;
  const char* why_;
};
inline constexpr Rerun Rerun::kCarried{Rerun::Kind::kCarried, nullptr, nullptr};
inline constexpr Rerun Rerun::kNoReport{Rerun::Kind::kNoReport, nullptr, nullptr};

// Keeps `rule` as o's (rule_of reads it); returns o. The declarations below call it.
CLI::Option* remember(CLI::Option* o, Rerun rule);

// An option taking a value (or a positional: a name without dashes), as CLI11's add_option.
template <typename T>
CLI::Option* option(CLI::App& app, const std::string& name, Rerun rule, T& value, const std::string& help) {
  return remember(app.add_option(name, value, help), rule);
}
// A switch (bool), or a flag with a default value ("--profile{100}" into an int), as add_flag.
template <typename T>
CLI::Option* flag(CLI::App& app, const std::string& name, Rerun rule, T& value, const std::string& help) {
  return remember(app.add_flag(name, value, help), rule);
}
// A switch that calls `on` when given, as add_flag_callback.
CLI::Option* flag_callback(CLI::App& app, const std::string& name, Rerun rule, std::function<void()> on,
                           const std::string& help);

// The rule a declaration above gave o; nullptr for an option declared otherwise (CLI11's own
// --help and --version).
const Rerun* rule_of(const CLI::Option& o);
// How a reproduce line writes o: the rule's spelling, else "--runs" for -n,--runs, "base" for a
// positional.
std::string spelled(const CLI::Option& o);

// The arguments that reproduce a parsed command's verdict ({"check", "-c", "gate.yaml", "--runs",
// "10", "--true-time"}): its name, then every flag given that is not left out, in the order the
// command declares them. A flag without a rule is carried (repeating too much beats a verdict
// measured otherwise).
std::vector<std::string> rerun_args(const CLI::App& command);

}  // namespace gate::cli
