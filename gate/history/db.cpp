// What --db names, and the parts of the connection both back ends share.
#include "history/db.hpp"

#include "common/error.hpp"

namespace gate::history {

void Db::rollback() noexcept {
  try {
    exec("ROLLBACK");
  } catch (...) {  // the connection is gone: the server rolls back by itself
  }
}

DbUrl parse_db_url(const std::string& url) {
  DbUrl u;
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) {
    u.kind = "postgresql";
    u.target = url;
    // user:password@host -> user:***@host
    u.shown = url;
    const auto scheme_end = url.find("://") + 3;
    const auto at = url.find('@', scheme_end);
    const auto colon = url.find(':', scheme_end);
    if (at != std::string::npos && colon != std::string::npos && colon < at)
      u.shown = url.substr(0, colon + 1) + "***" + url.substr(at);
    return u;
  }
  std::string path = url;
  if (url.rfind("sqlite:", 0) == 0) path = url.substr(7);
  if (path.rfind("//", 0) == 0) path = path.substr(2);  // sqlite://PATH
  if (path.empty() || path.find("://") != std::string::npos)
    throw Error::make("--db " + url, "not a database URL gate knows",
                      "give sqlite:PATH (e.g. sqlite:.gate/history.db) or postgresql://USER@HOST/DBNAME");
  u.kind = "sqlite";
  u.target = path;
  u.shown = path;
  return u;
}

std::unique_ptr<Db> open_db(const DbUrl& url, bool create) {
  if (url.kind == "postgresql") return open_postgresql(url.target, url.shown);
  return open_sqlite(url.target, create);
}

}  // namespace gate::history
