// The server back end: PostgreSQL through libpq, for many runners writing one history. Writers
// take a transaction-scoped advisory lock, so that concurrent ingests (and the schema's first
// creation, which PostgreSQL does not make safe on its own) run one after another.
#include <libpq-fe.h>

#include "common/error.hpp"
#include "history/db.hpp"

namespace gate::history {
namespace {

// The advisory lock's key: "gate" in ASCII. Any number works as long as every gate uses the same.
constexpr const char* kWriteLock = "SELECT pg_advisory_xact_lock(1734439013)";

// '?' placeholders as PostgreSQL's $1, $2, ... (the store never writes '?' inside a literal).
std::string numbered(const std::string& sql) {
  std::string out;
  int n = 0;
  for (char c : sql) {
    if (c == '?')
      out += "$" + std::to_string(++n);
    else
      out += c;
  }
  return out;
}

class PgDb final : public Db {
 public:
  PgDb(PGconn* c, std::string shown) : conn_(c), shown_(std::move(shown)) {}
  ~PgDb() override { PQfinish(conn_); }

  long exec(const std::string& sql, const std::vector<std::string>& params) override {
    Res r(run(sql, params));
    const char* n = PQcmdTuples(r.r);
    return n && *n ? std::stol(n) : 0;
  }

  std::vector<Row> query(const std::string& sql, const std::vector<std::string>& params) override {
    Res r(run(sql, params));
    std::vector<Row> rows;
    const int nr = PQntuples(r.r), nc = PQnfields(r.r);
    for (int i = 0; i < nr; ++i) {
      Row row;
      for (int j = 0; j < nc; ++j) row.emplace_back(PQgetisnull(r.r, i, j) ? "" : PQgetvalue(r.r, i, j));
      rows.push_back(std::move(row));
    }
    return rows;
  }

  void begin_write() override {
    exec("BEGIN", {});
    exec(kWriteLock, {});
  }

  std::vector<std::string> tables() override {
    std::vector<std::string> out;
    for (auto& r : query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                         "ORDER BY table_name",
                         {}))
      out.push_back(r[0]);
    return out;
  }
  std::string kind() const override { return "postgresql"; }
  std::string where() const override { return shown_; }

 private:
  struct Res {
    PGresult* r;
    explicit Res(PGresult* x) : r(x) {}
    ~Res() { PQclear(r); }
  };

  PGresult* run(const std::string& sql, const std::vector<std::string>& params) {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    PGresult* r = PQexecParams(conn_, numbered(sql).c_str(), static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0);
    const auto st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return r;
    std::string msg = r ? PQresultErrorMessage(r) : PQerrorMessage(conn_);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    PQclear(r);
    throw Error::make("history database " + shown_, "`" + sql.substr(0, 60) + "` failed: " + msg,
                      PQstatus(conn_) == CONNECTION_OK ? "check the database user's rights on the gate_* tables"
                                                       : "the connection was lost: check the server and retry");
  }

  PGconn* conn_;
  std::string shown_;
};

}  // namespace

std::unique_ptr<Db> open_postgresql(const std::string& uri, const std::string& shown) {
  PGconn* c = PQconnectdb(uri.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(c);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    PQfinish(c);
    throw Error::make("history database " + shown, "cannot connect: " + msg,
                      "check that the server runs and the URL's host, port, user and database name "
                      "(postgresql://USER@HOST:PORT/DBNAME, or ?host=/socket/dir for a unix socket)");
  }
  // Messages in English whatever the server's locale, and no notices on stderr.
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
  auto db = std::make_unique<PgDb>(c, shown);
  db->exec("SET client_min_messages = warning", {});
  return db;
}

}  // namespace gate::history
