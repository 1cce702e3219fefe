// run_as: the user database lookups (getpwnam/getpwuid, getgrouplist) done before any fork, and the
// sentence for a workload left to run as root.
#include "runner/run_as.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "common/error.hpp"
#include "runner/config.hpp"

namespace gate::runner {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

std::string RunAs::text() const {
  const std::string who = root() ? "root (uid 0)"
                                 : "uid " + std::to_string(uid) + (user.empty() ? "" : " (" + user + ")");
  return who + (source == "gate's own user" ? ", gate's own user" : ", from " + source);
}

RunAs resolve_run_as(const std::string& requested, const std::string& source, const char* sudo_uid,
                     const char* sudo_gid) {
  RunAs as;
  const uid_t self = ::geteuid();
  std::string want = requested;
  as.source = source;
  if (want.empty() && self == 0 && sudo_uid && all_digits(sudo_uid)) {
    want = sudo_uid;
    as.source = "SUDO_UID";
  }
  if (want.empty()) {
    as.uid = self;
    as.gid = ::getegid();
    as.source = "gate's own user";
    if (const passwd* pw = ::getpwuid(self)) {
      as.user = pw->pw_name;
      as.home = pw->pw_dir;
    }
    return as;
  }
  const passwd* pw = all_digits(want) ? ::getpwuid(static_cast<uid_t>(std::strtoul(want.c_str(), nullptr, 10)))
                                      : ::getpwnam(want.c_str());
  if (pw) {
    as.uid = pw->pw_uid;
    as.gid = pw->pw_gid;
    as.user = pw->pw_name;
    as.home = pw->pw_dir;
  } else if (all_digits(want)) {  // a uid without an entry (a container's runner user): its own group
    as.uid = static_cast<uid_t>(std::strtoul(want.c_str(), nullptr, 10));
    as.gid = static_cast<gid_t>(as.uid);
  } else {
    throw Error::make(as.source + " '" + want + "'", "is not a user of this machine (no entry in its user database)",
                      "give a user that exists here (`getent passwd NAME`) or a numeric uid", ExitCode::kUsage);
  }
  if (as.source == "SUDO_UID" && sudo_gid && all_digits(sudo_gid))
    as.gid = static_cast<gid_t>(std::strtoul(sudo_gid, nullptr, 10));
  if (as.uid == self) return as;  // already that user: nothing to drop
  if (self != 0) {
    throw Error::make(as.source + " '" + want + "'",
                      "asks for another user than gate's own (uid " + std::to_string(self) +
                          "), and only root may start processes as another user",
                      "run gate as root (sudo gate ...), or leave run_as unset to run the workload as gate's user",
                      ExitCode::kMeasure);
  }
  Credentials c;
  c.uid = as.uid;
  c.gid = as.gid;
  if (!as.user.empty()) {
    int n = 32;
    std::vector<gid_t> groups(static_cast<size_t>(n));
    if (::getgrouplist(as.user.c_str(), as.gid, groups.data(), &n) < 0) {
      groups.resize(static_cast<size_t>(n));
      ::getgrouplist(as.user.c_str(), as.gid, groups.data(), &n);
    }
    groups.resize(static_cast<size_t>(n > 0 ? n : 0));
    c.groups = groups;
  }
  if (c.groups.empty()) c.groups.push_back(as.gid);
  as.drop = c;
  return as;
}

RunAs run_as_of(const Config& cfg) {
  return resolve_run_as(cfg.run_as, cfg.run_as_from_flag ? "--run-as" : "run_as: in " + cfg.path,
                        std::getenv("SUDO_UID"), std::getenv("SUDO_GID"));
}

std::map<std::string, std::string> run_as_env(const RunAs& as, const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  if (!as.drop) return out;
  if (!as.home.empty() && !env.count("HOME")) out["HOME"] = as.home;
  if (!as.user.empty()) {
    if (!env.count("USER")) out["USER"] = as.user;
    if (!env.count("LOGNAME")) out["LOGNAME"] = as.user;
  }
  return out;
}

void record_run_as(const RunAs& as, ResultFile& r) {
  r.extra["run_as"] = as.text();
  r.extra["run_as_uid"] = std::to_string(as.uid);
}

std::optional<RootWorkload> root_workload(const ResultFile& r, const std::string& side) {
  const auto uid = r.extra.find("run_as_uid");
  if (uid == r.extra.end() || uid->second != "0") return std::nullopt;
  const auto who = r.extra.find("run_as");
  return RootWorkload{side, who == r.extra.end() ? "uid 0" : who->second};
}

}  // namespace gate::runner
