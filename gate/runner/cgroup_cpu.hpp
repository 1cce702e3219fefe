// The CPU quota of gate's cgroup and its throttling: a container's or pod's CPU limit is a CFS
// quota, which stalls the whole group in bursts once it is spent and stretches wall time by
// whatever the quota allows (cgroup v2 cpu.max and cpu.stat; v1 cpu.cfs_quota_us and cpu.stat).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "results/result.hpp"
#include "results/run_notes.hpp"

namespace gate::runner {

struct CpuQuota {
  int version = 0;          // 1 or 2: the hierarchy with the cpu controller; 0: none found
  std::string dir;          // the cgroup directory read (gate's own, as this mount namespace sees it)
  std::string limited_dir;  // the directory whose quota is the tightest ("" when none has one)
  uint64_t quota_us = 0;    // per period; 0: no quota (cpu.max "max", cfs_quota_us -1)
  uint64_t period_us = 0;
  double cpus() const { return quota_us && period_us ? static_cast<double>(quota_us) / period_us : 0; }
  std::string error;  // why nothing was found ("" when read)
  // "1.00 CPU (100000 us per 100000 us, cgroup v1 /sys/fs/cgroup/cpu/...)" / "none (cgroup v1 ...)".
  std::string text() const;
};

// Counts of cpu.stat (both versions): enforcement periods, those that ran out of quota, and the
// time the group was held (v1 throttled_time in ns, v2 throttled_usec; summed over CPUs).
struct CpuThrottling {
  uint64_t periods = 0, throttled = 0;
  double throttled_s = 0;
  bool known = false;
};

// The quota of gate's cgroup and of its ancestors visible here (the tightest), from
// /proc/self/cgroup and /proc/self/mountinfo.
CpuQuota read_cpu_quota();
// cpu.stat of the quota's directory (the limited one when there is one); unknown when unreadable.
CpuThrottling read_cpu_throttling(const CpuQuota& q);

// Pure parts, for the tests: cpu.stat's text; cpu.max's ("max 100000", "50000 100000").
CpuThrottling parse_cpu_stat(const std::string& text);
std::optional<std::pair<uint64_t, uint64_t>> parse_cpu_max(const std::string& text);
// The directory of `cgroup_path` (from /proc/self/cgroup) under a mount of its hierarchy whose
// root is `mount_root` at `mount_point` (mountinfo fields 4 and 5); "" when it lies outside.
std::string cgroup_dir(const std::string& mount_root, const std::string& mount_point, const std::string& cgroup_path);

// The share of enforcement periods throttled between two readings (0 when none elapsed).
double throttled_share(const CpuThrottling& before, const CpuThrottling& after);

// The runs of `r` the quota held back (RunResult::throttled_periods); none when no run was.
std::optional<ThrottledRuns> throttled_runs(const ResultFile& r, const std::string& side = "");

}  // namespace gate::runner
