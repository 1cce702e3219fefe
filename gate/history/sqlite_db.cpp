// The embedded back end: one SQLite file in WAL mode (readers never block the writer), with a busy
// timeout so that a second writer waits for the first instead of failing. Not for a network share:
// several runners writing one file over NFS corrupt it (use PostgreSQL for them).
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/error.hpp"
#include "history/db.hpp"

namespace gate::history {
namespace {

constexpr int kBusyTimeoutMs = 30000;  // a writer waits up to 30 s for another's transaction

class SqliteDb final : public Db {
 public:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteDb() override { sqlite3_close_v2(db_); }

  long exec(const std::string& sql, const std::vector<std::string>& params) override {
    Stmt s(*this, sql, params);
    while (s.step()) {
    }
    return sqlite3_changes(db_);
  }

  std::vector<Row> query(const std::string& sql, const std::vector<std::string>& params) override {
    Stmt s(*this, sql, params);
    std::vector<Row> rows;
    while (s.step()) {
      Row r;
      const int n = sqlite3_column_count(s.stmt);
      for (int i = 0; i < n; ++i) {
        if (sqlite3_column_type(s.stmt, i) == SQLITE_FLOAT) {
          // SQLite's own text form keeps 15 digits; 17 round-trip a double exactly (the same
          // figures as PostgreSQL's shortest exact form).
          char b[40];
          snprintf(b, sizeof b, "%.17g", sqlite3_column_double(s.stmt, i));
          r.emplace_back(b);
        } else {
          const unsigned char* t = sqlite3_column_text(s.stmt, i);
          r.emplace_back(t ? reinterpret_cast<const char*>(t) : "");
        }
      }
      rows.push_back(std::move(r));
    }
    return rows;
  }

  void begin_write() override { exec("BEGIN IMMEDIATE", {}); }

  std::vector<std::string> tables() override {
    std::vector<std::string> out;
    for (auto& r : query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", {}))
      out.push_back(r[0]);
    return out;
  }
  std::string kind() const override { return "sqlite"; }
  std::string where() const override { return path_; }

  [[noreturn]] void fail(int rc, const std::string& what) const {
    const std::string msg = sqlite3_errmsg(db_);
    std::string fix = "check the file's permissions and free space, then retry";
    if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
      fix = "the file was left as it is: restore it from a backup, or give --db another path (a new file is "
            "created there)";
    else if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
      fix = "another gate held the history longer than " + std::to_string(kBusyTimeoutMs / 1000) +
            " s: retry; many concurrent runners should share a PostgreSQL history instead";
    else if (rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN || rc == SQLITE_PERM)
      fix = "make the file and its directory writable, or give --db another path";
    throw Error::make("history database " + path_, what + ": " + msg + " (SQLite code " + std::to_string(rc) + ")",
                      fix);
  }

 private:
  struct Stmt {
    SqliteDb& db;
    sqlite3_stmt* stmt = nullptr;
    std::string sql;
    Stmt(SqliteDb& d, const std::string& text, const std::vector<std::string>& params) : db(d), sql(text) {
      const int rc = sqlite3_prepare_v2(db.db_, text.c_str(), -1, &stmt, nullptr);
      if (rc != SQLITE_OK) db.fail(rc, "cannot prepare `" + first_words(text) + "`");
      for (size_t i = 0; i < params.size(); ++i)
        sqlite3_bind_text(stmt, static_cast<int>(i + 1), params[i].c_str(), static_cast<int>(params[i].size()),
                          SQLITE_TRANSIENT);
    }
    ~Stmt() { sqlite3_finalize(stmt); }
    bool step() {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_ROW) return true;
      if (rc == SQLITE_DONE) return false;
      db.fail(rc, "`" + first_words(sql) + "` failed");
    }
    static std::string first_words(const std::string& s) { return s.substr(0, std::min<size_t>(s.size(), 60)); }
  };

  sqlite3* db_;
  std::string path_;
};

}  // namespace

std::unique_ptr<Db> open_sqlite(const std::string& path, bool create) {
  struct stat st {};
  const bool exists = stat(path.c_str(), &st) == 0;
  if (!exists && !create)
    throw Error::make("history database " + path, "does not exist",
                      "add results first (gate history add RESULT --commit SHA --db sqlite:" + path +
                          "), or give --db the history's path");
  if (exists && S_ISDIR(st.st_mode))
    throw Error::make("history database " + path, "is a directory", "give --db sqlite:FILE, a file path");
  if (!exists) {
    const auto dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec)
      throw Error::make("history database " + path, "cannot create its directory " + dir.string() + ": " + ec.message(),
                        "give --db a path in a writable directory");
  }
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    throw Error::make("history database " + path, "cannot open: " + msg,
                      "make the file and its directory readable and writable, or give --db another path");
  }
  auto out = std::make_unique<SqliteDb>(db, path);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db, 0);
  // The first statement reads the header: a file that is not SQLite fails here, before any write.
  out->query("PRAGMA schema_version", {});
  // Switching a new file to WAL takes an exclusive lock, and SQLite does not call the busy handler
  // for it: two writers opening a new history at once saw "database is locked" (1 in ~15 tries).
  // Retry for as long as the busy timeout; past it, the query below names the error.
  for (int waited_ms = 0; waited_ms < kBusyTimeoutMs; waited_ms += 10) {
    const int rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  out->query("PRAGMA journal_mode=WAL", {});
  out->exec("PRAGMA synchronous=NORMAL", {});  // WAL + NORMAL: a committed ingest survives a crash of gate
  out->exec("PRAGMA foreign_keys=ON", {});
  return out;
}

}  // namespace gate::history
