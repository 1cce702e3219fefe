// `gate history add RESULT --commit SHA`: keep a result file under its commit (idempotent: a
// retried upload adds nothing). The work is history::Store::add; this file parses flags and says
// what was kept.
#include <cerrno>
#include <cstring>

#include "cli/cmd_history.hpp"
#include "cli/flags.hpp"
#include "common/error.hpp"
#include "common/files.hpp"

namespace gate::cli {

std::function<int()> add_history_add(CLI::App& add, const Globals& g) {
  struct Args {
    std::string db = history::kDefaultDb;
    std::string result, commit, parent, time, branch;
  };
  auto a = std::make_shared<Args>();
  const Rerun no_report = Rerun::kNoReport;
  option(add, "RESULT", no_report, a->result, "A result file of gate run, record or check")->required();
  option(add, "--commit", no_report, a->commit, "The commit it measured")->required();
  option(add, "--parent", no_report, a->parent, "That commit's parent");
  option(add, "--time", no_report, a->time,
         "The commit's time (ISO 8601 or Unix seconds; orders the series). Default: now");
  option(add, "--branch", no_report, a->branch, "The branch it was measured on");
  add_db_flag(add, a->db);
  add.footer("Example:\n  gate history add results.json --commit \"$(git rev-parse HEAD)\" --parent \"$(git rev-parse HEAD~)\" "
             "--time \"$(git log -1 --format=%cI)\" --branch main --db sqlite:.gate/history.db");
  return [a, &g]() -> int {
    const auto bytes = read_file(a->result);
    if (!bytes)
      throw Error::make("result " + a->result, std::string("cannot be read: ") + strerror(errno),
                        "give the path of a result file written by gate run --out");
    const ResultFile r = result_from_json_text(*bytes, a->result);
    history::CommitInfo c{a->commit, a->parent, a->branch,
                          a->time.empty() ? history::now_utc() : history::normalize_time(a->time, "--time")};
    history::validate_for_history(r, c, a->result);  // before the database is made or touched
    history::Store store = history::Store::open(a->db, true);
    const history::IngestOutcome o = store.add(r, *bytes, c, a->result);
    if (o.added)
      g.log("kept " + a->result + " for commit " + history::short_commit(c.commit) + " (" +
            std::to_string(o.figures) + " function x run figures, machine " + o.machine.id + ") in " +
            store.db().where());
    else
      g.log(a->result + " for commit " + history::short_commit(c.commit) + " is already in " + store.db().where() +
            ": nothing added");
    return 0;
  };
}

}  // namespace gate::cli
