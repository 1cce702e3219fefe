// gate doctor: whether gate can measure on this host (and with this config), one check per line,
// each ok, warn or fail with the fix. The host's readings (HostFacts) are taken apart from their
// judgement (judge_host), so every failure and its fix is testable without changing the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probe/pid_namespace.hpp"
#include "runner/cgroup_cpu.hpp"
#include "runner/config.hpp"
#include "runner/run_as.hpp"

namespace gate::doctor {

enum class Status { kOk, kWarn, kFail };  // warn: gate runs, with a limit worth knowing
const char* to_string(Status s);          // "ok", "warn", "fail"

struct Check {
  std::string name;    // "kernel", "btf", "uprobe_multi", "privileges", "lockdown", ...
  Status status = Status::kOk;
  std::string detail;  // what was found
  std::string fix;     // what to do; empty when ok
};

// What the host says, read once (read_host) or written by a test.
struct HostFacts {
  std::string kernel_release;      // uname -r
  int kernel_major = 0, kernel_minor = 0;
  bool btf = false;                // /sys/kernel/btf/vmlinux readable
  int uprobe_multi_errno = 0;      // probe::uprobe_multi_errno(): 0 = has it
  bool root = false;               // effective uid 0
  std::string missing_privileges;  // probe::missing_bpf_privileges(): "" when BPF may be loaded
  bool perfmon = false;            // CAP_PERFMON or CAP_SYS_ADMIN (perf_event_paranoid is then moot)
  std::string lockdown;            // "none", "integrity", "confidentiality"; "" when no lockdown LSM
  std::optional<int> perf_event_paranoid;
  std::optional<int> unprivileged_bpf_disabled;
  uint64_t memlock_soft = 0, memlock_hard = 0;  // RLIM_INFINITY as UINT64_MAX
  bool can_raise_memlock = false;               // CAP_SYS_RESOURCE
  // Containers and pods (issue 55): gate's PID namespace, the capabilities held, seccomp, the
  // cgroup's CPU quota and its throttling so far.
  probe::PidNamespace pidns;
  bool container = false;  // not the host's PID namespace, or a container engine's marker file
  bool cap_bpf = false, cap_perfmon = false, cap_sys_admin = false;
  int seccomp = -1;                // /proc/self/status Seccomp: 0 off, 1 strict, 2 filter; -1 unknown
  int bpf_syscall_errno = 0;       // bpf() with an unknown command: EINVAL when the call reaches the kernel
  int perf_syscall_errno = 0;      // perf_event_open(NULL attr): EFAULT when it reaches the kernel
  runner::CpuQuota quota;
  runner::CpuThrottling throttling;
};
HostFacts read_host();

// Kernel, BTF, attach mode, privileges, lockdown, perf_event_paranoid; then the container's view:
// PID namespace, capabilities, seccomp, CPU quota.
std::vector<Check> judge_host(const HostFacts& h);

// Who the workload would run as (runner/run_as.hpp): a warning when root.
Check judge_run_as(const runner::RunAs& as);

// Kernel memory the config's maps may take (worst case), against RLIMIT_MEMLOCK on kernels that
// still charge BPF maps to it (< 5.11), gate's own ceiling and the memory cgroup's room.
Check judge_memory(const HostFacts& h, uint64_t worst_case_bytes, uint32_t functions);

// The config's binary (Go, x86-64, symbols, DWARF for inlining), its maps, and, when `attach`,
// one declared function really attached and detached. Appends to `out`.
void check_config(const runner::Config& cfg, const HostFacts& h, bool attach, std::vector<Check>& out);

// 0 when no check failed, else 3 (gate::ExitCode::kMeasure).
int exit_code(const std::vector<Check>& checks);

}  // namespace gate::doctor
