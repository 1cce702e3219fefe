// `gate history trend --out PAGE.html`: a self-contained HTML page of p50 and p99 over commits, and
// its JSON. The work is history::trends and trend_html; this file parses flags and writes the files.
#include "cli/cmd_history.hpp"
#include "cli/flags.hpp"
#include "common/files.hpp"

namespace gate::cli {

std::function<int()> add_history_trend(CLI::App& trend, const Globals& g) {
  struct Args {
    std::string db = history::kDefaultDb;
    std::string out_html, out_json;
    std::vector<std::string> functions;
    ChangeFlags cp;
    bool raw = false;
  };
  auto a = std::make_shared<Args>();
  const Rerun no_report = Rerun::kNoReport;
  option(trend, "--out", no_report, a->out_html, "The HTML page to write")->required();
  option(trend, "--json", no_report, a->out_json, "Also write the series and change points as JSON here");
  option(trend, "--function", no_report, a->functions, "Only these functions");
  add_db_flag(trend, a->db);
  add_raw_flag(trend, a->raw);
  a->cp.add(trend);
  trend.footer("Example:\n  gate history trend --db sqlite:.gate/history.db --out trend.html --json trend.json");
  return [a, &g]() -> int {
    a->cp.validate();
    OpenHistory h = open_history(a->db, a->raw);
    const auto fns = history::trends(h.runs, a->functions, {"p50", "p99"}, a->cp.p);
    const std::string source = h.runs.normalized ? " (speed-normalized)" : " (raw)";
    write_file_atomically(a->out_html, history::trend_html(fns, h.machines, h.store.db().where() + source));
    if (!a->out_json.empty())
      write_file_atomically(a->out_json, history::trend_json(fns, h.machines, a->cp.p).dump(1) + "\n");
    g.log("wrote " + a->out_html + (a->out_json.empty() ? "" : " and " + a->out_json) + " (" +
          std::to_string(fns.size()) + " functions)");
    return 0;
  };
}

}  // namespace gate::cli
