// The container checks: readings from /proc/self (status, ns/pid, cgroup), the capability sets and
// two harmless syscalls that tell a seccomp filter from the kernel; then their judgement.
#include "doctor/container.hpp"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "common/format.hpp"
#include "probe/probe_engine.hpp"

namespace gate::doctor {
namespace {

constexpr int kCapSysAdmin = 21, kCapPerfmon = 38, kCapBpf = 39;

bool effective(int cap) {
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &hdr, data) != 0) return false;
  return (data[cap / 32].effective >> (cap % 32)) & 1u;
}

// "Seccomp:\t2" of /proc/self/status.
int seccomp_mode() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Seccomp:", 0) == 0) return std::atoi(line.c_str() + 8);
  return -1;
}

// The errno of a call that does nothing when the kernel sees it: an unknown bpf() command (the
// kernel answers EINVAL), perf_event_open with no attributes (EFAULT). A seccomp filter answers
// before the kernel does, with its own errno (EPERM, or ENOSYS in podman's and Docker's profiles).
int bpf_errno() {
  return syscall(SYS_bpf, 0x7fffffff, nullptr, 0) < 0 ? errno : 0;
}
int perf_errno() {
  return syscall(SYS_perf_event_open, nullptr, -1, -1, -1, 0) < 0 ? errno : 0;
}

std::string yes_no(bool held, const char* name) { return std::string(name) + (held ? " yes" : " no"); }

}  // namespace

void read_container(HostFacts& h) {
  h.pidns = probe::own_pid_namespace();
  h.container = (h.pidns.ino && !h.pidns.initial()) || access("/.dockerenv", F_OK) == 0 ||
                access("/run/.containerenv", F_OK) == 0;
  h.cap_bpf = effective(kCapBpf);
  h.cap_perfmon = effective(kCapPerfmon);
  h.cap_sys_admin = effective(kCapSysAdmin);
  h.seccomp = seccomp_mode();
  h.bpf_syscall_errno = bpf_errno();
  h.perf_syscall_errno = perf_errno();
  h.quota = runner::read_cpu_quota();
  h.throttling = runner::read_cpu_throttling(h.quota);
}

void judge_container(const HostFacts& h, std::vector<Check>& out) {
  // The PID namespace: gate follows its workload by the PIDs this namespace gives it.
  if (!h.pidns.ino) {
    out.push_back({"pid_namespace", Status::kFail, "unknown: " + h.pidns.error,
                   "mount /proc in the container (`mount -t proc proc /proc`); container engines do"});
  } else if (!h.pidns.proc_matches) {
    out.push_back({"pid_namespace", Status::kFail,
                   h.pidns.text() + "; /proc shows another namespace's processes (/proc/self is " +
                       std::to_string(h.pidns.proc_self) + ")",
                   "mount a /proc of this namespace: `unshare --pid --fork --mount-proc`, or `mount -t proc proc "
                   "/proc` inside it"});
  } else {
    out.push_back({"pid_namespace", Status::kOk,
                   h.pidns.text() + (h.pidns.initial() ? "" : ": gate follows the workload by its PID here "
                                                              "(bpf_get_ns_current_pid_tgid at its exec)"),
                   ""});
  }
  // The capabilities, named one by one: what a --cap-add line must grant.
  const bool enough = h.cap_sys_admin || (h.cap_bpf && h.cap_perfmon);
  out.push_back({"capabilities", enough ? Status::kOk : Status::kFail,
                 yes_no(h.cap_bpf, "CAP_BPF") + ", " + yes_no(h.cap_perfmon, "CAP_PERFMON") + ", " +
                     yes_no(h.cap_sys_admin, "CAP_SYS_ADMIN") +
                     (enough ? "" : std::string(h.container ? " (in a container)" : "")),
                 enough ? "" : h.missing_privileges});
  // seccomp: only a filter can refuse a call the capabilities allow.
  if (h.seccomp == 2) {
    const bool bpf_blocked = h.bpf_syscall_errno != EINVAL, perf_blocked = h.perf_syscall_errno != EFAULT;
    std::string detail = "filter on; ";
    detail += bpf_blocked ? "bpf() refused (" + std::string(std::strerror(h.bpf_syscall_errno)) + ")"
                          : std::string("bpf() allowed");
    detail += perf_blocked ? ", perf_event_open refused (" + std::string(std::strerror(h.perf_syscall_errno)) + ")"
                           : std::string(", perf_event_open allowed");
    // EPERM without the capabilities may be the kernel's own answer (unprivileged_bpf_disabled).
    const bool caps_explain = !enough && h.bpf_syscall_errno == EPERM && !perf_blocked;
    out.push_back({"seccomp", (bpf_blocked || perf_blocked) && !caps_explain ? Status::kFail : Status::kOk,
                   detail + (caps_explain ? " (without CAP_BPF: see capabilities)" : ""),
                   (bpf_blocked || perf_blocked) && !caps_explain ? probe::kSeccompRefusesBpf : ""});
  } else {
    out.push_back({"seccomp", Status::kOk, h.seccomp == 0 ? "no filter" : h.seccomp < 0 ? "unknown" : "strict", ""});
  }
  // The CPU quota: a limit is noise gate names (throttled runs), not a reason not to run.
  std::string throttled;
  if (h.throttling.known) {
    throttled = "; throttled so far in " + std::to_string(h.throttling.throttled) + " of " +
                plural(h.throttling.periods, "period") +
                (h.throttling.periods ? " (" + fmt("%.1f%%", 100.0 * h.throttling.throttled / h.throttling.periods) + ")"
                                      : std::string()) +
                ", " + fmt("%.1f s", h.throttling.throttled_s) + " held";
  }
  if (!h.quota.version) {
    out.push_back({"cpu_quota", Status::kOk, h.quota.text(), ""});
  } else if (!h.quota.quota_us) {
    out.push_back({"cpu_quota", Status::kOk, h.quota.text() + throttled, ""});
  } else {
    out.push_back({"cpu_quota", Status::kWarn,
                   h.quota.text() + throttled +
                       ": once a period's quota is spent the whole group waits for the next, which stretches "
                       "wall time (gate names each throttled run in its report)",
                   "give the job more CPU than it uses, or no limit: docker/podman run --cpus; GitLab "
                   "[runners.docker] cpus; Kubernetes resources.limits.cpu (or requests without limits)"});
  }
}

Check judge_run_as(const runner::RunAs& as) {
  if (!as.root()) return {"run_as", Status::kOk, "the workload, its build and load driver run as " + as.text(), ""};
  return {"run_as", Status::kWarn,
          "the workload, its build and load driver would run as root (" + as.text() +
              "): the code under test gets gate's privileges",
          "set run_as: USER in gate.yaml or --run-as USER (an unprivileged user that can read the checkout); "
          "under sudo gate uses SUDO_UID (docs/ci.md, Fork pull requests)"};
}

}  // namespace gate::doctor
