// `gate history show FUNCTION`: one function's series over commits, per machine, with its change
// points, as text or JSON. The work is history::trends; this file parses flags and prints.
#include <cstdio>

#include "cli/cmd_history.hpp"
#include "cli/flags.hpp"

namespace gate::cli {

std::function<int()> add_history_show(CLI::App& show) {
  struct Args {
    std::string db = history::kDefaultDb;
    std::string function, format = "text";
    std::vector<std::string> quantiles;
    ChangeFlags cp;
    bool raw = false;
  };
  auto a = std::make_shared<Args>();
  option(show, "FUNCTION", Rerun::kNoReport, a->function, "The function's full name as stored")->required();
  add_quantile_flag(show, a->quantiles, "Quantiles to show (p50, p90, p99); default all");
  add_format_flag(show, a->format);
  add_db_flag(show, a->db);
  add_raw_flag(show, a->raw);
  a->cp.add(show);
  show.footer("Example:\n  gate history show 'example.com/shop/pricing.Apply' --quantile p50 --format json");
  return [a]() -> int {
    check_format(a->format);
    a->cp.validate();
    check_quantiles(a->quantiles);
    OpenHistory h = open_history(a->db, a->raw);
    const auto qs = a->quantiles.empty() ? history::kQuantiles : a->quantiles;
    auto fns = history::trends(h.runs, {a->function}, qs, a->cp.p);
    const auto& t = fns.front();
    if (a->format == "json") {
      std::printf("%s\n", history::show_document(t, a->cp.p, h.runs, h.machines).dump(1).c_str());
    } else {
      std::printf("%s%s", history::show_text(t.function, t.series, t.changes, h.machines).c_str(),
                  h.speed_note.c_str());
    }
    return 0;
  };
}

}  // namespace gate::cli
