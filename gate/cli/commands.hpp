// The gate subcommands: each registers its options on a CLI11 app and returns its exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace gate::cli {

// Options every command shares.
struct Globals {
  bool quiet = false;    // no progress lines
  bool verbose = false;  // more detail
  // Progress / log line to stderr unless quiet.
  void log(const std::string& line) const;
};

// Each returns a callback to run after parsing.
std::function<int()> add_run(CLI::App& app, const Globals& g);
std::function<int()> add_functions(CLI::App& app, const Globals& g);

}  // namespace gate::cli
