// The results history: what `gate history add` keeps of a result (per function and run the
// quantiles, calls and histogram), under the commit it measured and the machine it ran on, in a
// SQLite file or a PostgreSQL database with the same schema (docs/history.md, "Schema").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "history/db.hpp"
#include "results/result.hpp"

namespace gate::history {

inline constexpr int kHistorySchemaVersion = 1;

// Where a result was measured: the facts that make two results comparable. Never bogomips (it
// changes on reboot and would split a machine's series in two).
struct Machine {
  std::string id;  // fingerprint of the fields below ("fnv1a64:...")
  std::string cpu_model, kernel, go_version, gate_version;
  unsigned cpu_count = 0;  // kept for the reader; not in the fingerprint (CPU model says the kind)
  std::string label() const;  // "Intel Xeon ... / 6.1.0-18 / go1.19.8 / gate 0.9.0"
};
Machine machine_of(const RunContext& c);

struct CommitInfo {
  std::string commit;  // the measured commit (full or abbreviated SHA, as given)
  std::string parent;  // "" when not given
  std::string branch;  // "" when not given
  std::string time;    // ISO 8601 UTC ("2026-11-26T14:00:00Z"); orders the series
};
// "2026-11-26T15:00:00+01:00", "2026-11-26 14:00:00", "2026-11-26T14:00:00Z" or Unix seconds
// (optionally "@1764165600", git's %ct) -> "2026-11-26T14:00:00Z". Throws gate::Error naming `what`.
std::string normalize_time(const std::string& text, const std::string& what);
std::string now_utc();

struct IngestOutcome {
  bool added = false;   // false: this upload was already there (a retry): nothing was written
  std::string key;      // the natural key: fingerprint of commit and result bytes
  size_t figures = 0;   // function x run rows written
  Machine machine;
};

// One function in one run of one stored result.
struct StoredRun {
  std::string commit, time, machine, key;
  long seq = 0;  // ingest order, breaks ties of time
  int run = 0;
  uint64_t calls = 0;
  double p50_ns = 0, p90_ns = 0, p99_ns = 0;  // NaN when the run made no call
};

// Throws gate::Error (exit 2) when a result cannot be kept: partial, no runs, no commit. Called
// before the database is opened, so that a refused ingest creates nothing.
void validate_for_history(const ResultFile& r, const CommitInfo& c, const std::string& source);

class Store {
 public:
  // create: make the schema (and a missing SQLite file) when absent; otherwise a missing history is
  // an error naming the fix. Throws gate::Error (exit 2) for a corrupt or foreign database, naming
  // it; nothing is changed in it then.
  static Store open(const std::string& url, bool create);

  // One transaction: all of the result or nothing. A partial result is refused.
  IngestOutcome add(const ResultFile& r, const std::string& result_bytes, const CommitInfo& c,
                    const std::string& source);

  std::vector<std::string> functions();
  std::vector<StoredRun> runs_of(const std::string& function);  // ordered by time, then ingest order
  std::vector<Machine> machines();
  long result_count();
  Db& db() { return *db_; }

 private:
  explicit Store(std::unique_ptr<Db> db) : db_(std::move(db)) {}
  void ensure_schema(bool create);
  std::unique_ptr<Db> db_;
};

}  // namespace gate::history
