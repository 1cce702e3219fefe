// The gate subcommands: each registers its options on a CLI11 app (through flags.hpp) and returns
// what runs it, which returns its exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include "cli/measure_flags.hpp"

namespace gate::plan {
struct FunctionList;
}  // namespace gate::plan

namespace gate::cli {

// Options every command shares.
struct Globals {
  bool quiet = false;    // no progress lines
  bool verbose = false;  // more detail
  // Progress / log line to stderr unless quiet.
  void log(const std::string& line) const {
    if (!quiet) std::fprintf(stderr, "gate: %s\n", line.c_str());
  }
};

// Every command as a subcommand of app, with the flags they share (-q, -v into g): what each runs
// once parsed (commands.cpp). Set app's footer first: a command without its own shows gate's.
std::map<CLI::App*, std::function<int()>> add_commands(CLI::App& app, Globals& g);

// Each returns a callback to run after parsing.
std::function<int()> add_run(CLI::App& app, const Globals& g);
std::function<int()> add_functions(CLI::App& app, const Globals& g);
// gate functions' printouts (cmd_functions_print.cpp): a Go binary's listing, and with --native or
// --library the C/C++ functions.
void print_functions(const plan::FunctionList& list, bool json);
int print_native_functions(const std::string& binary, const std::string& library,
                           const std::vector<std::string>& match, bool json, const std::string& native_returns);
std::function<int()> add_record(CLI::App& app, const Globals& g);
std::function<int()> add_check(CLI::App& app, const Globals& g);
std::function<int()> add_compare(CLI::App& app, const Globals& g);
std::function<int()> add_ab(CLI::App& app, const Globals& g);
std::function<int()> add_merge(CLI::App& app, const Globals& g);  // cmd_merge.cpp
std::function<int()> add_calibrate(CLI::App& app, const Globals& g);
std::function<int()> add_history(CLI::App& app, const Globals& g);
std::function<int()> add_bisect(CLI::App& app, const Globals& g);
std::function<int()> add_doctor(CLI::App& app, const Globals& g);

}  // namespace gate::cli
