// gate: entry point. Parses the command line (CLI11), dispatches to one command, and turns a
// gate::Error into its message and documented exit code.
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "common/version.hpp"

namespace gate::cli {

void Globals::log(const std::string& line) const {
  if (!quiet) std::fprintf(stderr, "gate: %s\n", line.c_str());
}

}  // namespace gate::cli

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
      "  gate ab -c gate.yaml --base-binary old/shop --head-binary bin/shop\n"
      "  gate functions bin/shop --match 'example.com/shop.(*Cart).*'\n"
      "\n"
      "Exit codes: 0 ok / no regression, 1 regression, 2 usage or config error,\n"
      "            3 could not measure (workload failed, BPF refused, interrupted).");

  std::map<CLI::App*, std::function<int()>> handlers;
  auto* run = app.add_subcommand("run", "Run the workload with probes attached; write latency distributions");
  handlers[run] = cli::add_run(*run, g);
  auto* rec = app.add_subcommand("record", "Measure and store a baseline (atomically; never from a failed run)");
  handlers[rec] = cli::add_record(*rec, g);
  auto* chk = app.add_subcommand("check", "Measure and compare with the baseline; exit 1 on a regression");
  handlers[chk] = cli::add_check(*chk, g);
  auto* cmp = app.add_subcommand("compare", "Compare two result files offline");
  handlers[cmp] = cli::add_compare(*cmp, g);
  auto* ab = app.add_subcommand("ab", "Measure base and head binaries interleaved in one job and compare");
  handlers[ab] = cli::add_ab(*ab, g);
  auto* cal = app.add_subcommand("calibrate", "A/A on your workload: per function the noise and the slowdown gate can catch");
  handlers[cal] = cli::add_calibrate(*cal, g);
  auto* fns = app.add_subcommand("functions", "List a binary's functions with their probe sites (to write gate.yaml)");
  handlers[fns] = cli::add_functions(*fns, g);

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
