// `gate bisect GOOD BAD`: the commit that made a function slower (the work is gate/bisect). It can
// start from a change point of the history (gate/history). This file parses flags and prints.
#include <cstdio>

#include "bisect/bisect.hpp"
#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "common/error.hpp"
#include "history/queries.hpp"

namespace gate::cli {
namespace {

struct BisectArgs {
  bisect::Options o;
  std::string from_change, db = "sqlite:.gate/history.db";
};

// GOOD and BAD from the latest change point of FUNCTION's p50 in the history.
void from_change_point(BisectArgs& a) {
  auto store = history::Store::open(a.db, false);
  const history::Change c = history::latest_change(history::load_runs(store, false), a.from_change);
  a.o.good = c.before_commit;
  a.o.bad = c.commit;
  if (a.o.function.empty()) a.o.function = a.from_change;
}

}  // namespace

std::function<int()> add_bisect(CLI::App& app, const Globals& g) {
  auto a = std::make_shared<BisectArgs>();
  // Each step's gate ab prints its own report; bisect prints none.
  const Rerun no_report = Rerun::kNoReport;
  option(app, "GOOD", no_report, a->o.good, "A commit before the slowdown");
  option(app, "BAD", no_report, a->o.bad, "A commit with it");
  option(app, "-c,--config", no_report, a->o.config, "The gate.yaml to measure with (its build: builds each commit)")
      ->required();
  option(app, "--function", no_report, a->o.function,
         "Decide on this function's verdict alone (default: gate ab's exit code)");
  option(app, "--from-change", no_report, a->from_change,
         "Start from FUNCTION's latest change point in the history (GOOD and BAD are the commits around it)");
  option(app, "--db", no_report, a->db, "The history for --from-change")->envname("GATE_HISTORY_DB")->capture_default_str();
  option(app, "--runs", no_report, a->o.runs, "Runs per side in each gate ab (default: the config's)");
  option(app, "--max-runs", no_report, a->o.max_runs, "At most this many runs per side while inconclusive");
  option(app, "--work", no_report, a->o.work, "Directory for the worktrees and binaries (default: a temporary one)");
  flag(app, "--keep", no_report, a->o.keep, "Keep the work directory (the built binaries and each step's report)");
  app.footer(
      "Each step builds one commit in a temporary git worktree with the config's build: and runs gate ab\n"
      "between GOOD's binary and it; a regression makes the commit bad. GOOD must be an ancestor of BAD.\n"
      "Examples:\n"
      "  gate bisect v1.4.0 HEAD -c gate.yaml --function 'example.com/shop/pricing.Apply' --runs 6\n"
      "    (one function: a step is decided when it is; over every function, when all of them are)\n"
      "  gate bisect --from-change 'example.com/shop/pricing.Apply' -c gate.yaml --db sqlite:.gate/history.db\n"
      "Exit codes: 0 the first bad commit was named, 2 bad input, 3 a build or a measurement failed.");
  return [a, &g]() -> int {
    if (!a->from_change.empty()) from_change_point(*a);
    if (a->o.good.empty() || a->o.bad.empty())
      throw Error::make("gate bisect", "needs GOOD and BAD", "give both commits, or --from-change FUNCTION");
    a->o.verbose = g.verbose;
    bisect::run(a->o, [&g](const std::string& s) { g.log(s); }, [](const std::string& s) {
      std::printf("%s\n", s.c_str());
      std::fflush(stdout);
    });
    return 0;
  };
}

}  // namespace gate::cli
