// `gate history check --since REF`: the drift budget; exit 1 when a function got slower by more
// than --budget since REF. The work is history::check_drift; this file parses flags and prints.
#include <cstdio>

#include "cli/cmd_history.hpp"
#include "cli/flags.hpp"
#include "common/error.hpp"

namespace gate::cli {

std::function<int()> add_history_check(CLI::App& check) {
  struct Args {
    std::string db = history::kDefaultDb;
    std::string format = "text", since, budget = "10%";
    std::vector<std::string> quantiles;
    bool raw = false;
  };
  auto a = std::make_shared<Args>();
  const Rerun no_report = Rerun::kNoReport;
  option(check, "--since", no_report, a->since, "The pinned commit (e.g. the last release's SHA or tag)")->required();
  option(check, "--budget", no_report, a->budget, "Largest total slowdown allowed since REF")->capture_default_str();
  add_quantile_flag(check, a->quantiles, "Quantiles to hold to the budget; default p50");
  add_format_flag(check, a->format);
  add_db_flag(check, a->db);
  add_raw_flag(check, a->raw);
  check.footer("Examples:\n  gate history check --since v1.4.0 --budget 10%\n"
               "  gate history check --since \"$(git rev-parse v1.4.0)\" --budget 15% --quantile p50,p99   (a SHA, or a tag: read with git rev-parse)\n"
               "Exit codes: 0 within budget, 1 over budget, 2 REF not in the history or bad input.");
  return [a]() -> int {
    check_format(a->format);
    check_quantiles(a->quantiles);
    OpenHistory h = open_history(a->db, a->raw);
    const history::DriftCheck d =
        history::check_drift(h.store, h.runs, a->since, share_flag(a->budget, "--budget"),
                             a->quantiles.empty() ? std::vector<std::string>{"p50"} : a->quantiles);
    if (a->format == "json")
      std::printf("%s\n", history::drift_document(d, h.runs).dump(1).c_str());
    else
      std::printf("%s%s", history::drift_text(d.drifts, d.not_pinned, d.budget, history::short_commit(d.since)).c_str(),
                  h.speed_note.c_str());
    return static_cast<int>(d.over ? ExitCode::kRegression : ExitCode::kOk);
  };
}

}  // namespace gate::cli
