// The SQL connection under the history store: one small interface with a SQLite and a PostgreSQL
// (libpq) implementation, so that the store's SQL, schema and transactions are written once.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace gate::history {

using Row = std::vector<std::string>;  // one row's columns as text; NULL reads as ""

// Parameters are text ('?' placeholders, numbered for PostgreSQL); the column types convert them.
class Db {
 public:
  virtual ~Db() = default;
  // Runs a statement; returns the rows it changed. Throws gate::Error naming the database.
  virtual long exec(const std::string& sql, const std::vector<std::string>& params = {}) = 0;
  virtual std::vector<Row> query(const std::string& sql, const std::vector<std::string>& params = {}) = 0;
  // A write transaction that holds the store's write lock from its start (SQLite: BEGIN IMMEDIATE,
  // so that two writers never deadlock upgrading; PostgreSQL: an advisory lock, so that ingests
  // and the schema's creation are serialized across connections).
  virtual void begin_write() = 0;
  void commit() { exec("COMMIT"); }
  void rollback() noexcept;
  virtual std::vector<std::string> tables() = 0;  // the database's table names
  virtual std::string kind() const = 0;           // "sqlite" or "postgresql"
  virtual std::string where() const = 0;          // the file, or the URL without its password
};

// What --db names. "sqlite:PATH", a bare path, or "postgresql://..." / "postgres://...".
struct DbUrl {
  std::string kind;  // "sqlite" or "postgresql"
  std::string target;  // the path, or the libpq connection URI
  std::string shown;   // for messages (no password)
};
DbUrl parse_db_url(const std::string& url);
inline constexpr const char* kDefaultDb = "sqlite:.gate/history.db";

// Opens the database. create: a missing SQLite file (and its directory) is made; otherwise a
// missing file is an error naming the fix. Throws gate::Error (exit 2).
std::unique_ptr<Db> open_db(const DbUrl& url, bool create);
std::unique_ptr<Db> open_sqlite(const std::string& path, bool create);
std::unique_ptr<Db> open_postgresql(const std::string& uri, const std::string& shown);

}  // namespace gate::history
