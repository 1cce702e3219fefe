// A private PostgreSQL cluster for a test: made in a temporary directory with the Debian package's
// own initdb and pg_ctl, run as the postgres user when the test runs as root (initdb refuses root),
// listening only on a unix socket in that directory; stopped and removed at the end.
#pragma once

#include <string>

namespace gate::testing {

class PgCluster {
 public:
  PgCluster();  // starts it; missing() says why it could not when PostgreSQL is not installed
  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  const std::string& missing() const { return missing_; }  // "": running
  const std::string& url() const { return url_; }          // postgresql:///postgres?host=DIR&user=postgres
  // A fresh database in the cluster, as a URL.
  std::string new_database(const std::string& name);

 private:
  std::string bin_, dir_, url_, missing_;
  bool started_ = false;
};

}  // namespace gate::testing
