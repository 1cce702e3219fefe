// cgroup CPU quota readings (runner/cgroup_cpu.hpp) from written text: cpu.stat of both versions,
// cpu.max, the directory under a container's bind mount, and the throttled runs of a result.
#include <gtest/gtest.h>

#include "runner/cgroup_cpu.hpp"

namespace gate::runner {
namespace {

TEST(CgroupCpu, CpuStatOfBothVersions) {
  const CpuThrottling v1 = parse_cpu_stat("nr_periods 1200\nnr_throttled 30\nthrottled_time 2500000000\nnr_bursts 0\nburst_time 0\n");
  EXPECT_TRUE(v1.known);
  EXPECT_EQ(v1.periods, 1200u);
  EXPECT_EQ(v1.throttled, 30u);
  EXPECT_DOUBLE_EQ(v1.throttled_s, 2.5);
  const CpuThrottling v2 = parse_cpu_stat(
      "usage_usec 8000000\nuser_usec 6000000\nsystem_usec 2000000\nnr_periods 40\nnr_throttled 10\nthrottled_usec 750000\n");
  EXPECT_EQ(v2.periods, 40u);
  EXPECT_EQ(v2.throttled, 10u);
  EXPECT_DOUBLE_EQ(v2.throttled_s, 0.75);
  EXPECT_FALSE(parse_cpu_stat("usage_usec 5\n").known);  // cpu.stat of a cgroup without the cpu controller
  EXPECT_DOUBLE_EQ(throttled_share(v1, parse_cpu_stat("nr_periods 1300\nnr_throttled 55\n")), 0.25);
  EXPECT_DOUBLE_EQ(throttled_share(v1, v1), 0.0);  // no period elapsed
}

TEST(CgroupCpu, CpuMax) {
  EXPECT_EQ(parse_cpu_max("max 100000\n"), (std::pair<uint64_t, uint64_t>{0, 100000}));
  EXPECT_EQ(parse_cpu_max("50000 100000\n"), (std::pair<uint64_t, uint64_t>{50000, 100000}));
  EXPECT_FALSE(parse_cpu_max("garbage"));
}

// The directory of gate's cgroup: the host's mount (root "/"), a container's bind mount of its own
// cgroup (runc on cgroup v1: mount root = the path /proc/self/cgroup shows), a cgroup namespace.
TEST(CgroupCpu, DirectoryUnderTheMount) {
  EXPECT_EQ(cgroup_dir("/", "/sys/fs/cgroup/cpu", "/user.slice/job-1"), "/sys/fs/cgroup/cpu/user.slice/job-1");
  EXPECT_EQ(cgroup_dir("/machine.slice/libpod-ab12.scope", "/sys/fs/cgroup/cpu,cpuacct",
                       "/machine.slice/libpod-ab12.scope"),
            "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(cgroup_dir("/", "/sys/fs/cgroup", "/"), "/sys/fs/cgroup");
  EXPECT_EQ(cgroup_dir("/a/b", "/sys/fs/cgroup/cpu", "/a/c"), "");  // outside the mount
}

TEST(CgroupCpu, ThrottledRunsOfAResult) {
  ResultFile r;
  r.runs.resize(4);
  EXPECT_FALSE(throttled_runs(r, "head"));
  r.runs[1].cpu_periods = 100, r.runs[1].throttled_periods = 10, r.runs[1].throttled_s = 0.5;
  r.runs[3].cpu_periods = 100, r.runs[3].throttled_periods = 40, r.runs[3].throttled_s = 2.0;
  const auto t = throttled_runs(r, "head");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->side, "head");
  EXPECT_EQ(t->runs, 4u);
  EXPECT_EQ(t->throttled_runs, 2u);
  EXPECT_EQ(t->periods, 200u);
  EXPECT_EQ(t->throttled_periods, 50u);
  EXPECT_DOUBLE_EQ(t->throttled_s, 2.5);
  EXPECT_DOUBLE_EQ(t->max_share, 0.4);
}

// This machine's own reading: whatever it finds must be consistent (a quota has a period, a
// directory is named), and text() names the version and the directory.
TEST(CgroupCpu, ThisMachine) {
  const CpuQuota q = read_cpu_quota();
  if (!q.version) {
    EXPECT_FALSE(q.error.empty());
    GTEST_SKIP() << "no cgroup hierarchy with the cpu controller here: " << q.error;
  }
  EXPECT_FALSE(q.dir.empty());
  if (q.quota_us) EXPECT_GT(q.period_us, 0u);
  EXPECT_NE(q.text().find("cgroup v" + std::to_string(q.version)), std::string::npos) << q.text();
  EXPECT_TRUE(read_cpu_throttling(q).known) << q.text();
}

}  // namespace
}  // namespace gate::runner
