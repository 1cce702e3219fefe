// cgroup CPU quota and throttling from /proc/self/cgroup, /proc/self/mountinfo and the hierarchy's
// files; the directory is found through the mount's root, so a container's bind-mounted cgroup (v1
// under runc: /sys/fs/cgroup/cpu is the host's .../libpod-ID) reads the same as the host's.
#include "runner/cgroup_cpu.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <tuple>
#include <vector>

#include "common/files.hpp"

namespace gate::runner {

namespace fs = std::filesystem;

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// One hierarchy holding the cpu controller: its version, mount and gate's path in it.
struct Hierarchy {
  int version = 0;
  std::string root, point, path;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// A v1 line's controllers hold "cpu" ("cpu,cpuacct:/x", "cpu:/x"); the v2 line is "0::/x".
std::optional<Hierarchy> find_hierarchy(std::string* error) {
  const auto cg = read_file("/proc/self/cgroup");
  const auto mi = read_file("/proc/self/mountinfo");
  if (!cg || !mi) {
    *error = "/proc/self/cgroup or /proc/self/mountinfo unreadable";
    return std::nullopt;
  }
  std::string v1_path, v2_path;
  bool has_v2 = false;
  std::istringstream in(*cg);
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctrls = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (line.substr(0, a) == "0" && ctrls.empty()) {
      has_v2 = true;
      v2_path = path;
    }
    for (const auto& c : split(ctrls, ','))
      if (c == "cpu") v1_path = path;
  }
  std::istringstream mounts(*mi);
  for (std::string line; std::getline(mounts, line);) {
    // id parent major:minor root point options [optional...] - fstype source superoptions
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream l(line.substr(0, dash)), r(line.substr(dash + 3));
    std::string id, parent, dev, root, point, fstype, source, super;
    l >> id >> parent >> dev >> root >> point;
    r >> fstype >> source >> super;
    if (fstype == "cgroup" && !v1_path.empty()) {
      for (const auto& o : split(super, ','))
        if (o == "cpu") return Hierarchy{1, root, point, v1_path};
    }
    if (fstype == "cgroup2" && has_v2 && v1_path.empty()) {
      // The unified hierarchy has the cpu controller when its root lists it.
      const auto ctrls = read_file(point + "/cgroup.controllers");
      if (ctrls && (" " + trimmed(*ctrls) + " ").find(" cpu ") != std::string::npos)
        return Hierarchy{2, root, point, v2_path};
    }
  }
  *error = "no cgroup hierarchy with the cpu controller is mounted here";
  return std::nullopt;
}

}  // namespace

std::string CpuQuota::text() const {
  if (!version) return "unknown (" + error + ")";
  const std::string where = "cgroup v" + std::to_string(version) + " " + (limited_dir.empty() ? dir : limited_dir);
  if (!quota_us) return "none (" + where + ")";
  char b[96];
  std::snprintf(b, sizeof b, "%.2f CPU (%llu us per %llu us, ", cpus(), static_cast<unsigned long long>(quota_us),
                static_cast<unsigned long long>(period_us));
  return b + where + ")";
}

std::string cgroup_dir(const std::string& mount_root, const std::string& mount_point, const std::string& path) {
  const fs::path root = fs::path(mount_root).lexically_normal(), p = fs::path(path).lexically_normal();
  const fs::path rel = p.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return "";
  std::string dir = (rel == "." ? fs::path(mount_point) : fs::path(mount_point) / rel).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

CpuThrottling parse_cpu_stat(const std::string& text) {
  CpuThrottling t;
  std::istringstream in(text);
  std::string key;
  unsigned long long v = 0;
  while (in >> key >> v) {
    if (key == "nr_periods") t.periods = v, t.known = true;
    else if (key == "nr_throttled") t.throttled = v;
    else if (key == "throttled_time") t.throttled_s = static_cast<double>(v) / 1e9;   // v1: ns
    else if (key == "throttled_usec") t.throttled_s = static_cast<double>(v) / 1e6;   // v2: us
  }
  return t;
}

std::optional<std::pair<uint64_t, uint64_t>> parse_cpu_max(const std::string& text) {
  std::istringstream in(text);
  std::string quota;
  unsigned long long period = 0;
  if (!(in >> quota >> period)) return std::nullopt;
  if (quota == "max") return std::pair<uint64_t, uint64_t>{0, period};
  try {
    return std::pair<uint64_t, uint64_t>{std::stoull(quota), period};
  } catch (...) {
    return std::nullopt;
  }
}

CpuQuota read_cpu_quota() {
  CpuQuota q;
  const auto h = find_hierarchy(&q.error);
  if (!h) return q;
  q.dir = cgroup_dir(h->root, h->point, h->path);
  if (q.dir.empty()) {
    q.error = "gate's cgroup " + h->path + " lies outside the mount of " + h->root + " at " + h->point;
    return q;
  }
  q.version = h->version;
  // Gate's cgroup and its ancestors up to the mount: a pod's limit may sit on the pod's cgroup.
  for (fs::path d = q.dir;; d = d.parent_path()) {
    uint64_t quota = 0, period = 0;
    if (h->version == 2) {
      if (const auto t = read_file((d / "cpu.max").string()))
        if (const auto m = parse_cpu_max(*t)) std::tie(quota, period) = *m;
    } else {
      const auto qt = read_file((d / "cpu.cfs_quota_us").string()), pt = read_file((d / "cpu.cfs_period_us").string());
      if (qt && pt) {
        const long long qv = std::atoll(qt->c_str());
        quota = qv > 0 ? static_cast<uint64_t>(qv) : 0;
        period = static_cast<uint64_t>(std::atoll(pt->c_str()));
      }
    }
    if (quota && period && (!q.quota_us || static_cast<double>(quota) / period < q.cpus())) {
      q.quota_us = quota;
      q.period_us = period;
      q.limited_dir = d.string();
    }
    if (d.string() == cgroup_dir("/", h->point, "/") || d == d.parent_path()) break;  // the mount's root
  }
  return q;
}

CpuThrottling read_cpu_throttling(const CpuQuota& q) {
  if (!q.version) return {};
  const auto t = read_file((q.limited_dir.empty() ? q.dir : q.limited_dir) + "/cpu.stat");
  return t ? parse_cpu_stat(*t) : CpuThrottling{};
}

double throttled_share(const CpuThrottling& before, const CpuThrottling& after) {
  if (!before.known || !after.known || after.periods <= before.periods) return 0;
  return static_cast<double>(after.throttled - before.throttled) / static_cast<double>(after.periods - before.periods);
}

std::optional<ThrottledRuns> throttled_runs(const ResultFile& r, const std::string& side) {
  ThrottledRuns t;
  t.side = side;
  t.runs = r.runs.size();
  for (const auto& run : r.runs) {
    if (!run.throttled_periods) continue;
    t.throttled_runs++;
    t.periods += run.cpu_periods;
    t.throttled_periods += run.throttled_periods;
    t.throttled_s += run.throttled_s;
    if (run.cpu_periods)
      t.max_share = std::max(t.max_share, static_cast<double>(run.throttled_periods) / static_cast<double>(run.cpu_periods));
  }
  if (!t.throttled_runs) return std::nullopt;
  return t;
}

}  // namespace gate::runner
