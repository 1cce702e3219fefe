// `gate history changes`: the change points of every function, quantile and machine series, as text
// or JSON. The work is history::trends; this file parses flags and prints.
#include <cstdio>

#include "cli/cmd_history.hpp"
#include "cli/flags.hpp"

namespace gate::cli {

std::function<int()> add_history_changes(CLI::App& changes) {
  struct Args {
    std::string db = history::kDefaultDb;
    std::string format = "text";
    std::vector<std::string> quantiles, functions;
    ChangeFlags cp;
    bool raw = false;
  };
  auto a = std::make_shared<Args>();
  option(changes, "--function", Rerun::kNoReport, a->functions, "Only these functions");
  add_quantile_flag(changes, a->quantiles, "Quantiles to examine; default p50,p99");
  add_format_flag(changes, a->format);
  add_db_flag(changes, a->db);
  add_raw_flag(changes, a->raw);
  a->cp.add(changes);
  changes.footer("Examples:\n  gate history changes --db sqlite:.gate/history.db --format json\n"
                 "  gate history changes --function 'example.com/shop/pricing.Apply' --quantile p50");
  return [a]() -> int {
    check_format(a->format);
    a->cp.validate();
    check_quantiles(a->quantiles);
    OpenHistory h = open_history(a->db, a->raw);
    const auto qs = a->quantiles.empty() ? std::vector<std::string>{"p50", "p99"} : a->quantiles;
    size_t n_series = 0;
    std::vector<history::Change> all;
    for (auto& t : history::trends(h.runs, a->functions, qs, a->cp.p)) {
      n_series += t.series.size();
      for (auto& c : t.changes) all.push_back(std::move(c));
    }
    if (a->format == "json") {
      std::printf("%s\n", history::changes_document(all, n_series, a->cp.p, h.runs, h.machines).dump(1).c_str());
    } else {
      std::printf("%s%s", history::changes_text(all, h.machines, n_series).c_str(), h.speed_note.c_str());
    }
    return 0;
  };
}

}  // namespace gate::cli
