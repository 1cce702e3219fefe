// `gate history`: keep results over commits (add), and read them back: one function's series
// (show), the change points of every series (changes), the drift since a pinned commit (check) and
// the trend page (trend). The work is gate/history; this file parses flags and prints.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/numbers.hpp"
#include "explain/history_text.hpp"
#include "history/queries.hpp"

namespace gate::cli {
namespace {

using namespace gate::history;

// "10%" or "0.1" -> 0.1 (gate::parse_fraction), with this flag's error.
double share_flag(const std::string& text, const std::string& flag) {
  const std::optional<double> v = parse_fraction(text);
  if (!v || !(*v >= 0)) throw Error::make(flag + " " + text, "is not a share", "give a percentage such as 10% (or 0.1)");
  return *v;
}

void check_format(const std::string& f) {
  if (f != "text" && f != "json") throw Error::make("--format " + f, "is not a format of this command", "give text or json");
}

struct ChangeFlags {
  ChangePointParams p;
  void add(CLI::App& app) {
    app.add_option("--alpha", p.alpha, "Significance of a change (permutation test p-value at most this)")
        ->capture_default_str();
    app.add_option("--min-segment", p.min_segment, "Fewest commits on each side of a change")->capture_default_str();
    app.add_option("--min-shift", p.min_shift, "Smallest relative shift reported (0.05 = 5%)")->capture_default_str();
    app.add_option("--permutations", p.permutations, "Permutations per tested split")->capture_default_str();
    app.add_option("--seed", p.seed, "Seed of the permutations (same seed, same answer)")->capture_default_str();
  }
  void validate() const {
    if (p.min_segment < 2) throw Error::make("--min-segment", "must be at least 2", "give 2 or more (default 3)");
    if (p.permutations < 19) throw Error::make("--permutations", "below 19 cannot reach p 0.05", "give 99 or more");
  }
};

void add_raw_flag(CLI::App& app, bool& raw) {
  app.add_flag("--raw", raw,
               "Latencies as measured; by default each run is divided by the machine's speed in that run, "
               "estimated from its other functions (as gate ab does)");
}

void add_db_flag(CLI::App& app, std::string& db) {
  app.add_option("--db", db, "The history: sqlite:PATH or postgresql://USER@HOST/DB (env GATE_HISTORY_DB)")
      ->envname("GATE_HISTORY_DB")
      ->capture_default_str();
}

struct HistoryArgs {
  std::string db = kDefaultDb;
  std::string result, commit, parent, time, branch;
  std::string function, format = "text", since, budget = "10%", out_html, out_json;
  std::vector<std::string> quantiles, functions;
  ChangeFlags cp;
  bool raw = false;
};

}  // namespace

std::function<int()> add_history(CLI::App& app, const Globals& g) {
  auto a = std::make_shared<HistoryArgs>();
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

  CLI::App* add = app.add_subcommand("add", "Keep a result under its commit (idempotent: a retried upload adds nothing)");
  add->add_option("RESULT", a->result, "A result file of gate run, record or check")->required();
  add->add_option("--commit", a->commit, "The commit it measured")->required();
  add->add_option("--parent", a->parent, "That commit's parent");
  add->add_option("--time", a->time, "The commit's time (ISO 8601 or Unix seconds; orders the series). Default: now");
  add->add_option("--branch", a->branch, "The branch it was measured on");
  add_db_flag(*add, a->db);
  add->footer("Example:\n  gate history add results.json --commit \"$(git rev-parse HEAD)\" --parent \"$(git rev-parse HEAD~)\" "
              "--time \"$(git log -1 --format=%cI)\" --branch main --db sqlite:.gate/history.db");

  CLI::App* show = app.add_subcommand("show", "One function's series over commits, per machine, with its change points");
  show->add_option("FUNCTION", a->function, "The function's full name as stored")->required();
  show->add_option("--quantile", a->quantiles, "Quantiles to show (p50, p90, p99); default all")->delimiter(',');
  show->add_option("--format", a->format, "text or json")->capture_default_str();
  add_db_flag(*show, a->db);
  add_raw_flag(*show, a->raw);
  a->cp.add(*show);
  show->footer("Example:\n  gate history show 'example.com/shop/pricing.Apply' --quantile p50 --format json");

  CLI::App* changes = app.add_subcommand("changes", "Change points of every function, quantile and machine series");
  changes->add_option("--function", a->functions, "Only these functions");
  changes->add_option("--quantile", a->quantiles, "Quantiles to examine; default p50,p99")->delimiter(',');
  changes->add_option("--format", a->format, "text or json")->capture_default_str();
  add_db_flag(*changes, a->db);
  add_raw_flag(*changes, a->raw);
  a->cp.add(*changes);
  changes->footer("Examples:\n  gate history changes --db sqlite:.gate/history.db --format json\n"
                  "  gate history changes --function 'example.com/shop/pricing.Apply' --quantile p50");

  CLI::App* check = app.add_subcommand("check", "Drift budget: exit 1 when a function changed more than --budget since REF");
  check->add_option("--since", a->since, "The pinned commit (e.g. the last release's SHA or tag)")->required();
  check->add_option("--budget", a->budget, "Largest total slowdown allowed since REF")->capture_default_str();
  check->add_option("--quantile", a->quantiles, "Quantiles to hold to the budget; default p50")->delimiter(',');
  check->add_option("--format", a->format, "text or json")->capture_default_str();
  add_db_flag(*check, a->db);
  add_raw_flag(*check, a->raw);
  check->footer("Examples:\n  gate history check --since v1.4.0 --budget 10%\n"
                "  gate history check --since \"$(git rev-parse v1.4.0)\" --budget 15% --quantile p50,p99   (a SHA, or a tag: read with git rev-parse)\n"
                "Exit codes: 0 within budget, 1 over budget, 2 REF not in the history or bad input.");

  CLI::App* trend = app.add_subcommand("trend", "A self-contained HTML page of p50 and p99 over commits, and its JSON");
  trend->add_option("--out", a->out_html, "The HTML page to write")->required();
  trend->add_option("--json", a->out_json, "Also write the series and change points as JSON here");
  trend->add_option("--function", a->functions, "Only these functions");
  add_db_flag(*trend, a->db);
  add_raw_flag(*trend, a->raw);
  a->cp.add(*trend);
  trend->footer("Example:\n  gate history trend --db sqlite:.gate/history.db --out trend.html --json trend.json");

  return [a, &g, add, show, changes, check, trend]() -> int {
    check_format(a->format);
    a->cp.validate();
    for (const auto& q : a->quantiles)
      if (std::find(kQuantiles.begin(), kQuantiles.end(), q) == kQuantiles.end())
        throw Error::make("--quantile " + q, "is not a quantile the history keeps", "give p50, p90 or p99");
    if (add->parsed()) {
      const auto bytes = read_file(a->result);
      if (!bytes)
        throw Error::make("result " + a->result, std::string("cannot be read: ") + strerror(errno),
                          "give the path of a result file written by gate run --out");
      const ResultFile r = result_from_json_text(*bytes, a->result);
      CommitInfo c{a->commit, a->parent, a->branch,
                   a->time.empty() ? now_utc() : normalize_time(a->time, "--time")};
      validate_for_history(r, c, a->result);  // before the database is made or touched
      Store store = Store::open(a->db, true);
      const IngestOutcome o = store.add(r, *bytes, c, a->result);
      if (o.added)
        g.log("kept " + a->result + " for commit " + short_commit(c.commit) + " (" + std::to_string(o.figures) +
              " function x run figures, machine " + o.machine.id + ") in " + store.db().where());
      else
        g.log(a->result + " for commit " + short_commit(c.commit) + " is already in " + store.db().where() +
              ": nothing added");
      return 0;
    }
    Store store = Store::open(a->db, false);
    const Machines machines = machines_of(store);
    const LoadedRuns runs = load_runs(store, a->raw);
    const std::string speed_note = explain::speed_note(runs.normalized, runs.raw_machines.size());
    if (check->parsed()) {
      const DriftCheck d = check_drift(store, runs, a->since, share_flag(a->budget, "--budget"),
                                       a->quantiles.empty() ? std::vector<std::string>{"p50"} : a->quantiles);
      if (a->format == "json")
        std::printf("%s\n", drift_document(d, runs).dump(1).c_str());
      else
        std::printf("%s%s", drift_text(d.drifts, d.not_pinned, d.budget, short_commit(d.since)).c_str(),
                    speed_note.c_str());
      return static_cast<int>(d.over ? ExitCode::kRegression : ExitCode::kOk);
    }
    if (show->parsed()) {
      const auto qs = a->quantiles.empty() ? kQuantiles : a->quantiles;
      auto fns = trends(runs, {a->function}, qs, a->cp.p);
      const auto& t = fns.front();
      if (a->format == "json") {
        std::printf("%s\n", show_document(t, a->cp.p, runs, machines).dump(1).c_str());
      } else {
        std::printf("%s%s", show_text(t.function, t.series, t.changes, machines).c_str(), speed_note.c_str());
      }
      return 0;
    }
    if (changes->parsed()) {
      const auto qs = a->quantiles.empty() ? std::vector<std::string>{"p50", "p99"} : a->quantiles;
      size_t n_series = 0;
      std::vector<Change> all;
      for (auto& t : trends(runs, a->functions, qs, a->cp.p)) {
        n_series += t.series.size();
        for (auto& c : t.changes) all.push_back(std::move(c));
      }
      if (a->format == "json") {
        std::printf("%s\n", changes_document(all, n_series, a->cp.p, runs, machines).dump(1).c_str());
      } else {
        std::printf("%s%s", changes_text(all, machines, n_series).c_str(), speed_note.c_str());
      }
      return 0;
    }
    // trend
    const auto fns = trends(runs, a->functions, {"p50", "p99"}, a->cp.p);
    write_file_atomically(a->out_html, trend_html(fns, machines, store.db().where() + (runs.normalized ? " (speed-normalized)" : " (raw)")));
    if (!a->out_json.empty()) write_file_atomically(a->out_json, trend_json(fns, machines, a->cp.p).dump(1) + "\n");
    g.log("wrote " + a->out_html + (a->out_json.empty() ? "" : " and " + a->out_json) + " (" +
          std::to_string(fns.size()) + " functions)");
    return 0;
  };
}

}  // namespace gate::cli
