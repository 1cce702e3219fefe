// Who the workload, the service, the load driver and the build run as: gate keeps the privileges
// BPF needs and starts them as an unprivileged user (run_as:, --run-as, else the user sudo ran as).
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>

#include "common/subprocess.hpp"
#include "results/result.hpp"
#include "results/run_notes.hpp"

namespace gate::runner {

struct Config;

struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user;  // the name in the user database ("" when it has none)
  std::string home;  // its home directory ("" when unknown)
  // Where the choice came from: "run_as: in the config", "--run-as", "SUDO_UID" or "gate's own
  // user" (nothing asked for another one).
  std::string source;
  // Set when the processes run as another user than gate (what Child and run_process apply).
  std::optional<Credentials> drop;
  bool root() const { return uid == 0; }
  // "uid 1000 (ci), from SUDO_UID" / "root (uid 0), gate's own user".
  std::string text() const;
};

// `requested` is a user name or a numeric uid ("" = not asked: then SUDO_UID/SUDO_GID when gate
// runs as root under sudo, else gate's own user); `source` says who asked. Throws gate::Error
// (exit 2) for a user this machine does not know, or (exit 3) when gate may not change users.
RunAs resolve_run_as(const std::string& requested, const std::string& source, const char* sudo_uid,
                     const char* sudo_gid);
// The config's run_as (with --run-as folded in by the CLI), else the default above from gate's
// environment.
RunAs run_as_of(const Config& cfg);

// HOME, USER and LOGNAME of the user the processes run as, where `env` (the config's) sets none:
// a build (go build's cache under $HOME) or a workload must not use root's home. Empty when the
// processes run as gate's own user.
std::map<std::string, std::string> run_as_env(const RunAs& as, const std::map<std::string, std::string>& env);

// What a result records of it (ResultFile::extra "run_as", "run_as_uid"), and the note when that
// was root (explain::root_workload words it); none for a result written before, or not as root.
void record_run_as(const RunAs& as, ResultFile& r);
std::optional<RootWorkload> root_workload(const ResultFile& r, const std::string& side = "");

}  // namespace gate::runner
