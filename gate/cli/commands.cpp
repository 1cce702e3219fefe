// gate's commands, in the order --help lists them, and the flags every command shares (-q, -v): one
// function that builds them on the top-level app, which main.cpp parses and tests/cli walks.
#include "cli/commands.hpp"

#include "cli/flags.hpp"

namespace gate::cli {

std::map<CLI::App*, std::function<int()>> add_commands(CLI::App& app, Globals& g) {
  // Printing only: a reproduce line is built from a command's own flags, which these are not.
  flag(app, "-q,--quiet", Rerun::left_out("how much is printed, not what is measured or judged"), g.quiet,
       "No progress output (errors and the report only)");
  flag(app, "-v,--verbose", Rerun::left_out("how much is printed, not what is measured or judged"), g.verbose,
       "More detail in progress output");
  struct Command {
    const char* name;
    const char* what;
    std::function<int()> (*add)(CLI::App&, const Globals&);
  };
  static constexpr Command kCommands[] = {
      {"run", "Run the workload with probes attached; write latency distributions", add_run},
      {"record", "Measure and store a baseline (atomically; never from a failed run)", add_record},
      {"check", "Measure and compare with the baseline; exit 1 on a regression", add_check},
      {"compare", "Compare two result files offline", add_compare},
      {"ab", "Measure base and head binaries interleaved in one job and compare", add_ab},
      {"merge", "Judge the shards of one gate ab split over a CI matrix (gate ab --shard K/N)", add_merge},
      {"calibrate", "A/A on your workload: per function the noise and the slowdown gate can catch", add_calibrate},
      {"history", "Results over commits: keep them, find change points, drift budget, trend page", add_history},
      {"bisect", "Find the commit that made a function slower: builds commits and runs gate ab", add_bisect},
      {"functions", "List a binary's functions with their probe sites (to write gate.yaml)", add_functions},
      {"doctor", "Check that gate can measure here (kernel, privileges, the config's binary); each fix", add_doctor},
  };
  std::map<CLI::App*, std::function<int()>> handlers;
  for (const auto& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.what);
    handlers[sub] = c.add(*sub, g);
  }
  return handlers;
}

}  // namespace gate::cli
