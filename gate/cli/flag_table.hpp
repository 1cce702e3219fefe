// The flag table: every flag of the commands that print a report (check, compare, ab, merge), each
// declared once with how it repeats in the report's "reproduce:" line, which is built from it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gate::cli {

// How a flag given on the command line repeats in a reproduce line.
enum class Rerun {
  kCarried,  // as given: the flag, then its value(s) (a switch: the flag alone)
  kLeftOut,  // not repeated: it chooses where output goes or what else is written, not the verdict
};

struct FlagRule {
  const char* name;      // the flag's long name ("--runs"), or a positional's name ("base")
  Rerun rerun;
  const char* spelling;  // how a reproduce line writes it ("-c"); nullptr: its name
  const char* why;       // kLeftOut: why the verdict does not need it
};

// The table, in no particular order (tests/cli/flag_table_test.cpp checks that every flag of those
// commands has a row).
const std::vector<FlagRule>& flag_table();
// The row of an option of a parsed CLI11 app; nullptr when the table has none.
const FlagRule* rule_of(const CLI::Option& o);

// The arguments that reproduce a parsed command's verdict ({"check", "-c", "gate.yaml", "--runs",
// "10", "--true-time"}): its name, then every flag given that the table carries, in the order the
// command declares them. A flag without a row is carried (repeating too much beats a verdict
// measured otherwise).
std::vector<std::string> rerun_args(const CLI::App& command);

}  // namespace gate::cli
