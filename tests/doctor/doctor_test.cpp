// judge_host / judge_memory on written HostFacts: every check can fail, and a failure carries a fix.
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>

#include "doctor/doctor.hpp"
#include "probe/probe_engine.hpp"

namespace gate::doctor {
namespace {

HostFacts good_host() {
  HostFacts h;
  h.kernel_release = "6.8.0";
  h.kernel_major = 6;
  h.kernel_minor = 8;
  h.btf = true;
  h.root = true;
  h.perfmon = true;
  h.perf_event_paranoid = 2;
  h.memlock_soft = h.memlock_hard = 8 << 20;
  h.pidns.dev = 4;
  h.pidns.ino = probe::kInitialPidNamespaceInode;
  h.pidns.proc_matches = true;
  h.cap_bpf = h.cap_perfmon = h.cap_sys_admin = true;
  h.seccomp = 0;
  return h;
}

// The host of a capability-only container (docker/podman --cap-add BPF --cap-add PERFMON --cpus 1).
HostFacts container_host() {
  HostFacts h = good_host();
  h.container = true;
  h.pidns.ino = 4026532291;
  h.cap_sys_admin = false;
  h.seccomp = 2;
  h.bpf_syscall_errno = EINVAL;   // reached the kernel
  h.perf_syscall_errno = EFAULT;  // reached the kernel
  h.quota.version = 1;
  h.quota.dir = "/sys/fs/cgroup/cpu";
  h.quota.quota_us = h.quota.period_us = 100000;
  h.throttling = {1200, 30, 2.5, true};
  return h;
}

Check find(const std::vector<Check>& checks, const std::string& name) {
  for (const auto& c : checks)
    if (c.name == name) return c;
  throw std::runtime_error("no check named " + name);
}

void expect_fail_with_fix(const HostFacts& h, const std::string& name, const std::string& in_fix) {
  const auto checks = judge_host(h);
  const Check& c = find(checks, name);
  EXPECT_EQ(c.status, Status::kFail) << name << ": " << c.detail;
  EXPECT_NE(c.fix.find(in_fix), std::string::npos) << name << " fix: " << c.fix;
  EXPECT_EQ(exit_code(checks), 3);
}

TEST(Doctor, GoodHostPasses) {
  const auto checks = judge_host(good_host());
  for (const auto& c : checks) EXPECT_EQ(c.status, Status::kOk) << c.name << ": " << c.detail;
  EXPECT_EQ(exit_code(checks), 0);
}

// Each host check made to fail once from a good host: its reading, the check, a word of its fix.
TEST(Doctor, EachHostCheckFailsWithItsFix) {
  struct Case {
    const char* check;
    const char* in_fix;
    std::function<void(HostFacts&)> spoil;
  };
  const Case cases[] = {
      {"kernel", ">= 5.15", [](HostFacts& h) { h.kernel_release = "5.10.0", h.kernel_major = 5, h.kernel_minor = 10; }},
      {"btf", "CONFIG_DEBUG_INFO_BTF", [](HostFacts& h) { h.btf = false; }},
      {"uprobe_multi", "privileges", [](HostFacts& h) { h.uprobe_multi_errno = EPERM; }},
      {"privileges", "CAP_BPF",
       [](HostFacts& h) { h.root = false, h.missing_privileges = "gate needs CAP_BPF and CAP_PERFMON ...: setcap"; }},
  };
  for (const auto& c : cases) {
    HostFacts h = good_host();
    c.spoil(h);
    expect_fail_with_fix(h, c.check, c.in_fix);
  }
}

TEST(Doctor, NoUprobeMultiIsTheFallbackNotAFailure) {
  HostFacts h = good_host();
  h.uprobe_multi_errno = EINVAL;
  const Check c = find(judge_host(h), "uprobe_multi");
  EXPECT_EQ(c.status, Status::kOk);
  EXPECT_NE(c.detail.find("fallback"), std::string::npos) << c.detail;
}

TEST(Doctor, ConfidentialityLockdownFails) {
  HostFacts h = good_host();
  h.lockdown = "confidentiality";
  expect_fail_with_fix(h, "lockdown", "lockdown=integrity");
  h.lockdown = "integrity";
  EXPECT_EQ(find(judge_host(h), "lockdown").status, Status::kOk);
}

TEST(Doctor, ParanoidWithoutPerfmonFails) {
  HostFacts h = good_host();
  h.perfmon = false;
  expect_fail_with_fix(h, "perf_event_paranoid", "CAP_PERFMON");
  h.perf_event_paranoid = -1;
  EXPECT_EQ(find(judge_host(h), "perf_event_paranoid").status, Status::kOk);
}

TEST(Doctor, MemlockMattersOnlyWhereTheKernelChargesIt) {
  HostFacts h = good_host();
  h.memlock_soft = h.memlock_hard = 64 << 10;  // prlimit --memlock=65536
  const uint64_t need = uint64_t{46} << 20;
  EXPECT_EQ(judge_memory(h, need, 17).status, Status::kOk);  // 6.8: memory cgroup, not memlock
  h.kernel_major = 5;
  h.kernel_minor = 4;
  const Check c = judge_memory(h, need, 17);
  EXPECT_EQ(c.status, Status::kFail) << c.detail;
  EXPECT_NE(c.fix.find("ulimit -l unlimited"), std::string::npos) << c.fix;
  h.can_raise_memlock = true;  // CAP_SYS_RESOURCE: libbpf raises it
  EXPECT_EQ(judge_memory(h, need, 17).status, Status::kOk);
}

// A capability-only container with a CPU quota can run gate: the namespace is named and handled,
// the quota (and its throttling so far) is a warning with its fix, not a failure.
TEST(DoctorContainer, CapabilityOnlyWithAQuotaRuns) {
  const auto checks = judge_host(container_host());
  EXPECT_EQ(exit_code(checks), 0);
  const Check ns = find(checks, "pid_namespace");
  EXPECT_EQ(ns.status, Status::kOk);
  EXPECT_NE(ns.detail.find("4026532291 (not the host's"), std::string::npos) << ns.detail;
  EXPECT_EQ(find(checks, "capabilities").status, Status::kOk);
  EXPECT_EQ(find(checks, "seccomp").status, Status::kOk);
  const Check q = find(checks, "cpu_quota");
  EXPECT_EQ(q.status, Status::kWarn);
  EXPECT_NE(q.detail.find("1.00 CPU (100000 us per 100000 us, cgroup v1 /sys/fs/cgroup/cpu)"), std::string::npos) << q.detail;
  EXPECT_NE(q.detail.find("30 of 1200 periods (2.5%), 2.5 s held"), std::string::npos) << q.detail;
  EXPECT_NE(q.fix.find("--cpus"), std::string::npos) << q.fix;
  EXPECT_NE(q.fix.find("resources.limits.cpu"), std::string::npos) << q.fix;
}

TEST(DoctorContainer, ProcOfAnotherNamespaceFailsWithMountProc) {
  HostFacts h = container_host();
  h.pidns.proc_matches = false;
  h.pidns.proc_self = 81234;
  expect_fail_with_fix(h, "pid_namespace", "--mount-proc");
  h.pidns = {};
  h.pidns.error = "/proc/self/ns/pid: No such file or directory";
  expect_fail_with_fix(h, "pid_namespace", "mount -t proc");
}

// No CAP_BPF in a container: the capability is named, and the fix is the container's --cap-add line.
TEST(DoctorContainer, MissingCapBpfNamesTheCapAddLine) {
  HostFacts h = container_host();
  h.cap_bpf = false;
  h.missing_privileges = probe::bpf_privileges_fix(false, true, false, true, true);
  const auto checks = judge_host(h);
  const Check c = find(checks, "capabilities");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_NE(c.detail.find("CAP_BPF no, CAP_PERFMON yes, CAP_SYS_ADMIN no (in a container)"), std::string::npos) << c.detail;
  EXPECT_NE(c.fix.find("gate needs CAP_BPF (or CAP_SYS_ADMIN)"), std::string::npos) << c.fix;
  EXPECT_NE(c.fix.find("`--cap-add BPF --cap-add PERFMON`"), std::string::npos) << c.fix;
  EXPECT_NE(c.fix.find("securityContext.capabilities.add"), std::string::npos) << c.fix;
  EXPECT_EQ(exit_code(checks), 3);
  // On the host, not root: sudo or setcap, no container line.
  const std::string host = probe::bpf_privileges_fix(false, false, false, false, false);
  EXPECT_NE(host.find("setcap"), std::string::npos) << host;
  EXPECT_EQ(host.find("--cap-add"), std::string::npos) << host;
  EXPECT_EQ(probe::bpf_privileges_fix(false, false, true, true, true), "");  // CAP_SYS_ADMIN covers both
}

TEST(DoctorContainer, SeccompThatRefusesBpfFails) {
  HostFacts h = container_host();
  h.bpf_syscall_errno = ENOSYS;  // podman's and Docker's profiles answer ENOSYS
  expect_fail_with_fix(h, "seccomp", "seccomp=unconfined");
  h = container_host();
  h.perf_syscall_errno = EPERM;
  expect_fail_with_fix(h, "seccomp", "seccompProfile");
  // EPERM from bpf() without CAP_BPF is the kernel's own answer: the capabilities check says it.
  h = container_host();
  h.cap_bpf = false;
  h.bpf_syscall_errno = EPERM;
  EXPECT_EQ(find(judge_host(h), "seccomp").status, Status::kOk);
}

TEST(DoctorContainer, RootWorkloadWarnsWithTheFix) {
  runner::RunAs root;
  root.source = "gate's own user";
  const Check c = judge_run_as(root);
  EXPECT_EQ(c.status, Status::kWarn);
  EXPECT_NE(c.detail.find("would run as root (root (uid 0), gate's own user)"), std::string::npos) << c.detail;
  EXPECT_NE(c.fix.find("run_as: USER"), std::string::npos) << c.fix;
  runner::RunAs user;
  user.uid = 1000;
  user.user = "ci";
  user.source = "SUDO_UID";
  const Check u = judge_run_as(user);
  EXPECT_EQ(u.status, Status::kOk);
  EXPECT_NE(u.detail.find("uid 1000 (ci), from SUDO_UID"), std::string::npos) << u.detail;
}

}  // namespace
}  // namespace gate::doctor
