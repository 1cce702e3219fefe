// The history's schema and its one write path (ingest), on either back end (history/db.hpp).
#include "history/store.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.hpp"
#include "common/fnv.hpp"
#include "common/format.hpp"

namespace gate::history {
namespace {

// One schema for both back ends: TEXT, BIGINT and DOUBLE PRECISION mean the same in each. Tables
// are prefixed so that a PostgreSQL database shared with other programs stays readable.
constexpr const char* kSchema[] = {
    "CREATE TABLE gate_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE gate_machines (fingerprint TEXT PRIMARY KEY, cpu_model TEXT NOT NULL, kernel TEXT NOT NULL, "
    "go_version TEXT NOT NULL, gate_version TEXT NOT NULL, cpu_count BIGINT NOT NULL)",
    "CREATE TABLE gate_results (ingest_key TEXT PRIMARY KEY, commit_sha TEXT NOT NULL, parent_sha TEXT NOT NULL, "
    "branch TEXT NOT NULL, commit_time TEXT NOT NULL, seq BIGINT NOT NULL, ingested_at TEXT NOT NULL, "
    "machine TEXT NOT NULL REFERENCES gate_machines(fingerprint), config_hash TEXT NOT NULL, "
    "config_name TEXT NOT NULL, source TEXT NOT NULL, runs BIGINT NOT NULL)",
    "CREATE TABLE gate_figures (ingest_key TEXT NOT NULL REFERENCES gate_results(ingest_key), "
    "function TEXT NOT NULL, run_index BIGINT NOT NULL, calls BIGINT NOT NULL, sum_ns BIGINT NOT NULL, "
    "min_ns BIGINT NOT NULL, max_ns BIGINT NOT NULL, p50_ns DOUBLE PRECISION, p90_ns DOUBLE PRECISION, "
    "p99_ns DOUBLE PRECISION, histogram TEXT NOT NULL, PRIMARY KEY (ingest_key, function, run_index))",
    "CREATE INDEX gate_figures_by_function ON gate_figures (function)",
    "CREATE INDEX gate_results_by_commit ON gate_results (commit_sha)",
};
const std::set<std::string> kTables = {"gate_meta", "gate_machines", "gate_results", "gate_figures"};

std::string fmt_double(double v) {
  if (!std::isfinite(v)) return "";
  char b[40];
  snprintf(b, sizeof b, "%.17g", v);
  return b;
}

double parse_double(const std::string& s) { return s.empty() ? NAN : std::strtod(s.c_str(), nullptr); }


}  // namespace

std::string Machine::label() const {
  return cpu_model + " x" + std::to_string(cpu_count) + " / kernel " + kernel + " / " +
         (go_version.empty() ? "go ?" : go_version) + " / gate " + gate_version;
}

Machine machine_of(const RunContext& c) {
  Machine m;
  m.cpu_model = c.cpu_model;
  m.kernel = c.kernel;
  m.go_version = c.go_version;
  m.gate_version = c.gate_version;
  m.cpu_count = c.cpu_count;
  m.id = fnv1a64_fingerprint(m.cpu_model + "\n" + m.kernel + "\n" + m.go_version + "\n" + m.gate_version);
  return m;
}

std::string now_utc() {
  const time_t t = time(nullptr);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char b[32];
  strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

std::string normalize_time(const std::string& text, const std::string& what) {
  const auto bad = [&]() {
    return Error::make(what + " " + text, "is not a time gate reads",
                       "give ISO 8601 (2026-11-26T14:00:00Z, or with an offset as git log --format=%cI prints it) "
                       "or Unix seconds (git log --format=%ct)");
  };
  std::string s = text;
  if (!s.empty() && s[0] == '@') s = s.substr(1);
  time_t t = 0;
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    t = static_cast<time_t>(std::stoll(s));
  } else {
    int Y, M, D, h = 0, m = 0, sec = 0, n = 0;
    if (sscanf(s.c_str(), "%4d-%2d-%2d%n", &Y, &M, &D, &n) != 3) throw bad();
    size_t pos = static_cast<size_t>(n);
    long offset = 0;
    if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
      int k = 0;
      if (sscanf(s.c_str() + pos + 1, "%2d:%2d:%2d%n", &h, &m, &sec, &k) != 3) throw bad();
      pos += 1 + k;
      if (pos < s.size() && s[pos] == '.') {  // fraction of a second: dropped
        ++pos;
        while (pos < s.size() && isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
      }
      if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
      } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh = 0, om = 0;
        if (sscanf(s.c_str() + pos + 1, "%2d:%2d", &oh, &om) != 2) throw bad();
        offset = (s[pos] == '-' ? -1 : 1) * (oh * 3600L + om * 60L);
        pos += 6;
      }
    }
    if (pos != s.size() || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60) throw bad();
    struct tm tm {};
    tm.tm_year = Y - 1900;
    tm.tm_mon = M - 1;
    tm.tm_mday = D;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    t = timegm(&tm) - offset;
  }
  struct tm out {};
  gmtime_r(&t, &out);
  char b[32];
  strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &out);
  return b;
}

Store Store::open(const std::string& url, bool create) {
  Store s(open_db(parse_db_url(url), create));
  s.ensure_schema(create);
  return s;
}

void Store::ensure_schema(bool create) {
  const std::string object = "history database " + db_->where();
  auto tables = db_->tables();
  const std::set<std::string> have(tables.begin(), tables.end());
  if (!have.count("gate_meta")) {
    std::vector<std::string> others;
    for (const auto& t : tables)
      if (db_->kind() == "sqlite" || t.rfind("gate_", 0) == 0) others.push_back(t);
    if (!others.empty())
      throw Error::make(object, "is not a gate history: it holds tables " + join(others) + " and no gate_meta",
                        "it was left as it is: give --db a new path (or an empty database) for gate's history");
    if (!create)
      throw Error::make(object, "holds no gate history yet",
                        "add results first: gate history add RESULT --commit SHA --db " +
                            std::string(db_->kind() == "sqlite" ? "sqlite:" : "") + db_->where());
    db_->begin_write();
    try {
      // Another writer may have made it while this one waited for the lock.
      const auto again = db_->tables();
      if (std::find(again.begin(), again.end(), "gate_meta") == again.end()) {
        for (const char* sql : kSchema) db_->exec(sql);
        db_->exec("INSERT INTO gate_meta (key, value) VALUES ('schema', 'gate.history'), ('version', ?)",
                  {std::to_string(kHistorySchemaVersion)});
      }
      db_->commit();
    } catch (...) {
      db_->rollback();
      throw;
    }
    return;
  }
  std::string schema, version;
  for (auto& r : db_->query("SELECT key, value FROM gate_meta")) {
    if (r[0] == "schema") schema = r[1];
    if (r[0] == "version") version = r[1];
  }
  if (schema != "gate.history")
    throw Error::make(object, "is not a gate history: its gate_meta names schema '" + schema + "'",
                      "it was left as it is: give --db another path for gate's history");
  if (std::atoi(version.c_str()) > kHistorySchemaVersion)
    throw Error::make(object,
                      "was written by a newer gate (history schema " + version + ", this gate reads " +
                          std::to_string(kHistorySchemaVersion) + ")",
                      "use that newer gate, or another --db");
  for (const auto& t : kTables)
    if (!have.count(t))
      throw Error::make(object, "is a damaged gate history: table " + t + " is missing",
                        "it was left as it is: restore it from a backup, or give --db another path");
}

void validate_for_history(const ResultFile& r, const CommitInfo& c, const std::string& source) {
  if (r.partial)
    throw Error::make("result " + source, "is partial (" + r.partial_reason + "): its figures are incomplete",
                      "keep only complete results: re-run gate run");
  if (r.runs.empty())
    throw Error::make("result " + source, "has no runs", "keep a result of gate run, record or check");
  if (c.commit.empty())
    throw Error::make("result " + source, "has no commit", "give --commit SHA (e.g. --commit \"$(git rev-parse HEAD)\")");
}

IngestOutcome Store::add(const ResultFile& r, const std::string& result_bytes, const CommitInfo& c,
                         const std::string& source) {
  validate_for_history(r, c, source);
  IngestOutcome out;
  out.machine = machine_of(r.context);
  // The natural key: a retried upload of the same file for the same commit is the same row.
  out.key = fnv1a64_fingerprint(c.commit + "\n" + result_bytes);
  db_->begin_write();
  try {
    const Machine& m = out.machine;
    db_->exec("INSERT INTO gate_machines (fingerprint, cpu_model, kernel, go_version, gate_version, cpu_count) "
              "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
              {m.id, m.cpu_model, m.kernel, m.go_version, m.gate_version, std::to_string(m.cpu_count)});
    const auto seq = db_->query("SELECT COALESCE(MAX(seq), 0) + 1 FROM gate_results");
    const auto name = r.extra.find("config_name");
    const long added = db_->exec(
        "INSERT INTO gate_results (ingest_key, commit_sha, parent_sha, branch, commit_time, seq, ingested_at, machine, "
        "config_hash, config_name, source, runs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        {out.key, c.commit, c.parent, c.branch, c.time, seq.at(0).at(0), now_utc(), m.id, r.context.config_hash,
         name == r.extra.end() ? "" : name->second, source, std::to_string(r.runs.size())});
    if (added == 0) {
      db_->rollback();
      return out;
    }
    for (const auto& run : r.runs) {
      for (const auto& f : run.functions) {
        nlohmann::json h = nlohmann::json::array();
        for (const auto& [bucket, count] : f.histogram.buckets()) h.push_back({bucket, count});
        db_->exec("INSERT INTO gate_figures (ingest_key, function, run_index, calls, sum_ns, min_ns, max_ns, p50_ns, "
                  "p90_ns, p99_ns, histogram) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  {out.key, f.name.str(), std::to_string(run.index), std::to_string(f.calls), std::to_string(f.sum_ns),
                   std::to_string(f.min_ns), std::to_string(f.max_ns),
                   f.calls ? fmt_double(f.quantile_ns(0.5)) : "", f.calls ? fmt_double(f.quantile_ns(0.9)) : "",
                   f.calls ? fmt_double(f.quantile_ns(0.99)) : "", h.dump()});
        ++out.figures;
      }
    }
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  out.added = true;
  return out;
}

std::vector<std::string> Store::functions() {
  std::vector<std::string> out;
  for (auto& r : db_->query("SELECT DISTINCT function FROM gate_figures ORDER BY function")) out.push_back(r[0]);
  return out;
}

std::vector<StoredRun> Store::runs_of(const std::string& function) {
  std::vector<StoredRun> out;
  for (auto& r : db_->query("SELECT r.commit_sha, r.commit_time, r.machine, r.ingest_key, r.seq, f.run_index, "
                            "f.calls, f.p50_ns, f.p90_ns, f.p99_ns FROM gate_figures f JOIN gate_results r ON "
                            "r.ingest_key = f.ingest_key WHERE f.function = ? ORDER BY r.commit_time, r.seq, "
                            "f.run_index",
                            {function})) {
    StoredRun s;
    s.commit = r[0];
    s.time = r[1];
    s.machine = r[2];
    s.key = r[3];
    s.seq = std::atol(r[4].c_str());
    s.run = std::atoi(r[5].c_str());
    s.calls = std::strtoull(r[6].c_str(), nullptr, 10);
    s.p50_ns = parse_double(r[7]);
    s.p90_ns = parse_double(r[8]);
    s.p99_ns = parse_double(r[9]);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Machine> Store::machines() {
  std::vector<Machine> out;
  for (auto& r : db_->query("SELECT fingerprint, cpu_model, kernel, go_version, gate_version, cpu_count FROM "
                            "gate_machines ORDER BY fingerprint")) {
    Machine m{r[0], r[1], r[2], r[3], r[4], static_cast<unsigned>(std::atoi(r[5].c_str()))};
    out.push_back(std::move(m));
  }
  return out;
}

long Store::result_count() { return std::atol(db_->query("SELECT COUNT(*) FROM gate_results").at(0).at(0).c_str()); }

}  // namespace gate::history
