// gate: entry point. Parses the command line (CLI11; the commands are commands.cpp's), dispatches to
// one command, and turns a gate::Error into its message and documented exit code.
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

  cli::Globals g;
  // After the footer: a command without one of its own shows gate's (CLI11 copies it at creation).
  const std::map<CLI::App*, std::function<int()>> handlers = cli::add_commands(app, g);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(ExitCode::kUsage);
  }
  try {
    for (const auto& [sub, fn] : handlers)
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
