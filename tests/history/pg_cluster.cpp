// Starts and stops the tests' private PostgreSQL cluster.
#include "history/pg_cluster.hpp"

#include <glob.h>
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "common/subprocess.hpp"

namespace gate::testing {
namespace {

std::vector<std::string> as_postgres(std::vector<std::string> argv) {
  if (geteuid() != 0) return argv;
  argv.insert(argv.begin(), {"/usr/sbin/runuser", "-u", "postgres", "--"});
  return argv;
}

}  // namespace

PgCluster::PgCluster() {
  glob_t g{};
  if (glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &g) == 0 && g.gl_pathc > 0) {
    bin_ = std::filesystem::path(g.gl_pathv[g.gl_pathc - 1]).parent_path().string();
  }
  globfree(&g);
  if (bin_.empty()) {
    missing_ = "PostgreSQL is NOT INSTALLED (no /usr/lib/postgresql/*/bin/initdb): the PostgreSQL history tests did "
               "not run; install it with ci/setup.sh (package postgresql)";
    return;
  }
  const passwd* pw = getpwnam("postgres");
  if (geteuid() == 0 && !pw) {
    missing_ = "no postgres user on this machine: the PostgreSQL history tests did not run; reinstall the "
               "postgresql package (ci/setup.sh)";
    return;
  }
  char t[] = "/tmp/gate-pg-XXXXXX";
  if (!mkdtemp(t)) throw std::runtime_error("mkdtemp failed");
  dir_ = t;
  if (geteuid() == 0 && chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0)
    throw std::runtime_error("chown " + dir_ + " to postgres failed");
  auto run = [&](const std::vector<std::string>& argv, const std::string& what) {
    ProcessSpec s;
    s.argv = as_postgres(argv);
    s.cwd = dir_;
    s.merge_stderr = true;
    s.env = {{"LC_ALL", "C"}};
    const auto r = run_process(s);
    if (r.status != 0) throw std::runtime_error(what + " failed (exit " + std::to_string(r.status) + "):\n" + r.out);
  };
  run({bin_ + "/initdb", "-D", dir_ + "/data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
       "--no-sync"},
      "initdb");
  // No TCP at all; the socket in our directory; no fsync (a test cluster, thrown away after).
  run({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-l", dir_ + "/server.log", "-w", "-t", "60", "-o",
       "-c listen_addresses='' -c unix_socket_directories=" + dir_ + " -c fsync=off", "start"},
      "pg_ctl start");
  started_ = true;
  url_ = "postgresql:///postgres?host=" + dir_ + "&user=postgres";
}

std::string PgCluster::new_database(const std::string& name) {
  ProcessSpec s;
  s.argv = {bin_ + "/psql", "-h", dir_, "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1",
            "-c", "CREATE DATABASE " + name};
  s.merge_stderr = true;
  const auto r = run_process(s);
  if (r.status != 0) throw std::runtime_error("CREATE DATABASE " + name + " failed:\n" + r.out);
  return "postgresql:///" + name + "?host=" + dir_ + "&user=postgres";
}

PgCluster::~PgCluster() {
  if (started_) {
    ProcessSpec s;
    s.argv = as_postgres({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-m", "fast", "-w", "stop"});
    s.cwd = dir_;
    s.merge_stderr = true;
    run_process(s);
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

}  // namespace gate::testing
