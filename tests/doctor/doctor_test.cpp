// judge_host / judge_memory on written HostFacts: every check can fail, and a failure carries a fix.
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>

#include "doctor/doctor.hpp"

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

}  // namespace
}  // namespace gate::doctor
