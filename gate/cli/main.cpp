// gate: entry point. Parses the command line (CLI11), dispatches to one command, and turns a
// gate::Error into its message and documented exit code.
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "common/version.hpp"

int main(int argc, char** argv) {
  using namespace gate;
  CLI::App app{"gate: a performance-regression gate for Go services.\n"
               "Times declared Go functions with eBPF uprobes over repeated runs and compares the\n"
               "latency distributions with a baseline.",
               "gate"};
  app.set_version_flag("--version", std::string("gate ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough();  // -q and -v also work after the subcommand
  cli::Globals g;
  app.add_flag("-q,--quiet", g.quiet, "No progress output (errors and the report only)");
  app.add_flag("-v,--verbose", g.verbose, "More detail in progress output");
  app.footer(
      "Examples:\n"
      "  gate run --config examples/shop/gate.yaml --runs 3 --out results.json\n"
      "  gate record -c examples/shop/gate.yaml            # store baselines/shop.json\n"
      "  gate check -c examples/shop/gate.yaml             # exit 1 on a regression\n"
      "  gate ab -c gate.yaml --base-binary base/shop --head-binary bin/shop\n"
      "  gate functions bin/shop --match 'example.com/shop.(*Cart).*'\n"
      "  gate functions bin/shop --args --match 'example.com/shop.(*Cart).Add'   # for bucket_by\n"
      "  gate run -c gate.yaml --summary --folded calls.folded   # self time, call graph\n"
      "  gate doctor -c gate.yaml                          # can gate run on this machine?\n"
      "\n"
      "Exit codes: 0 ok / no regression, 1 regression (or a suspect with --fail-on-suspect),\n"
      "            2 usage or config error,\n"
      "            3 could not measure (workload failed, a run timed no call, BPF refused,\n"
      "            interrupted).");

  struct Command {
    const char* name;
    const char* what;
    std::function<int()> (*add)(CLI::App&, const cli::Globals&);
  };
  static constexpr Command kCommands[] = {
      {"run", "Run the workload with probes attached; write latency distributions", cli::add_run},
      {"record", "Measure and store a baseline (atomically; never from a failed run)", cli::add_record},
      {"check", "Measure and compare with the baseline; exit 1 on a regression", cli::add_check},
      {"compare", "Compare two result files offline", cli::add_compare},
      {"ab", "Measure base and head binaries interleaved in one job and compare", cli::add_ab},
      {"merge", "Judge the shards of one gate ab split over a CI matrix (gate ab --shard K/N)", cli::add_merge},
      {"calibrate", "A/A on your workload: per function the noise and the slowdown gate can catch", cli::add_calibrate},
      {"history", "Results over commits: keep them, find change points, drift budget, trend page", cli::add_history},
      {"bisect", "Find the commit that made a function slower: builds commits and runs gate ab", cli::add_bisect},
      {"functions", "List a binary's functions with their probe sites (to write gate.yaml)", cli::add_functions},
      {"doctor", "Check that gate can measure here (kernel, privileges, the config's binary); each fix", cli::add_doctor},
  };
  std::map<CLI::App*, std::function<int()>> handlers;
  for (const auto& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.what);
    handlers[sub] = c.add(*sub, g);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(ExitCode::kUsage);
  }
  try {
    for (auto& [sub, fn] : handlers)
      if (sub->parsed()) return fn();
  } catch (const Error& e) {
    std::fprintf(stderr, "gate: error: %s\n", e.what());
    return static_cast<int>(e.exit_code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gate: internal error: %s\n  please report this with the command line that caused it\n",
                 e.what());
    return static_cast<int>(ExitCode::kMeasure);
  }
  return 0;
}
