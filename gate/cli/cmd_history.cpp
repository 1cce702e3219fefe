// `gate history`: keep results over commits (add), and read them back: one function's series
// (show), the change points of every series (changes), the drift since a pinned commit (check) and
// the trend page (trend). Each subcommand is a file of its own (cmd_history_*.cpp); here are the
// command, its subcommands in the order --help lists them, and the flags and checks they share.
#include "cli/cmd_history.hpp"

#include <algorithm>
#include <map>

#include "cli/flags.hpp"
#include "common/error.hpp"
#include "common/numbers.hpp"
#include "explain/history_text.hpp"

namespace gate::cli {

void add_db_flag(CLI::App& app, std::string& db) {
  option(app, "--db", Rerun::kNoReport, db, "The history: sqlite:PATH or postgresql://USER@HOST/DB (env GATE_HISTORY_DB)")
      ->envname("GATE_HISTORY_DB")
      ->capture_default_str();
}

void add_raw_flag(CLI::App& app, bool& raw) {
  flag(app, "--raw", Rerun::kNoReport, raw,
       "Latencies as measured; by default each run is divided by the machine's speed in that run, "
       "estimated from its other functions (as gate ab does)");
}

void add_format_flag(CLI::App& app, std::string& format) {
  option(app, "--format", Rerun::kNoReport, format, "text or json")->capture_default_str();
}

void add_quantile_flag(CLI::App& app, std::vector<std::string>& quantiles, const std::string& help) {
  option(app, "--quantile", Rerun::kNoReport, quantiles, help)->delimiter(',');
}

void ChangeFlags::add(CLI::App& app) {
  const Rerun no_report = Rerun::kNoReport;
  option(app, "--alpha", no_report, p.alpha, "Significance of a change (permutation test p-value at most this)")
      ->capture_default_str();
  option(app, "--min-segment", no_report, p.min_segment, "Fewest commits on each side of a change")->capture_default_str();
  option(app, "--min-shift", no_report, p.min_shift, "Smallest relative shift reported (0.05 = 5%)")->capture_default_str();
  option(app, "--permutations", no_report, p.permutations, "Permutations per tested split")->capture_default_str();
  option(app, "--seed", no_report, p.seed, "Seed of the permutations (same seed, same answer)")->capture_default_str();
}

void ChangeFlags::validate() const {
  if (p.min_segment < 2) throw Error::make("--min-segment", "must be at least 2", "give 2 or more (default 3)");
  if (p.permutations < 19) throw Error::make("--permutations", "below 19 cannot reach p 0.05", "give 99 or more");
}

void check_format(const std::string& f) {
  if (f != "text" && f != "json") throw Error::make("--format " + f, "is not a format of this command", "give text or json");
}

void check_quantiles(const std::vector<std::string>& quantiles) {
  for (const auto& q : quantiles)
    if (std::find(history::kQuantiles.begin(), history::kQuantiles.end(), q) == history::kQuantiles.end())
      throw Error::make("--quantile " + q, "is not a quantile the history keeps", "give p50, p90 or p99");
}

double share_flag(const std::string& text, const std::string& flag) {
  const std::optional<double> v = parse_fraction(text);
  if (!v || !(*v >= 0)) throw Error::make(flag + " " + text, "is not a share", "give a percentage such as 10% (or 0.1)");
  return *v;
}

OpenHistory open_history(const std::string& db, bool raw) {
  history::Store store = history::Store::open(db, false);
  history::Machines machines = history::machines_of(store);
  history::LoadedRuns runs = history::load_runs(store, raw);
  const std::string speed_note = explain::speed_note(runs.normalized, runs.raw_machines.size());
  return {std::move(store), std::move(machines), std::move(runs), speed_note};
}

std::function<int()> add_history(CLI::App& app, const Globals& g) {
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  gate run -c gate.yaml --out r.json && \\\n"
      "    gate history add r.json --commit \"$(git rev-parse HEAD)\" --time \"$(git log -1 --format=%cI)\" --branch main\n"
      "  gate history changes --db sqlite:.gate/history.db --format json\n"
      "  gate history show 'example.com/shop/pricing.Apply'\n"
      "  gate history check --since v1.4.0 --budget 10%\n"
      "  gate history trend --out trend.html --json trend.json\n"
      "  --db postgresql://gate@db.example/perf for a history shared by many runners (docs/history.md)");
  std::map<CLI::App*, std::function<int()>> run;
  CLI::App* add = app.add_subcommand("add", "Keep a result under its commit (idempotent: a retried upload adds nothing)");
  run[add] = add_history_add(*add, g);
  CLI::App* show = app.add_subcommand("show", "One function's series over commits, per machine, with its change points");
  run[show] = add_history_show(*show);
  CLI::App* changes = app.add_subcommand("changes", "Change points of every function, quantile and machine series");
  run[changes] = add_history_changes(*changes);
  CLI::App* check =
      app.add_subcommand("check", "Drift budget: exit 1 when a function changed more than --budget since REF");
  run[check] = add_history_check(*check);
  CLI::App* trend = app.add_subcommand("trend", "A self-contained HTML page of p50 and p99 over commits, and its JSON");
  run[trend] = add_history_trend(*trend, g);
  return [run]() -> int {
    for (const auto& [sub, fn] : run)
      if (sub->parsed()) return fn();
    return 0;  // not reached: one subcommand is required
  };
}

}  // namespace gate::cli
