// The size model and the fits-or-fails check of the probe maps (gate/probe/kernel_memory), without
// root: figures from the kernel's accounting rules, and errors that name the size and the fix.
#include "probe/kernel_memory.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace gate::probe {
namespace {

TEST(KernelMemoryPlan, FollowsTheKernelsHashMapAccounting) {
  const auto p = plan_maps(10000, 262144);
  EXPECT_EQ(p.record_bytes, 48u + 8 + 136 + 8);  // header, u32 key, 17 counters, list node
  EXPECT_EQ(p.group_bytes, 48u + 8 + 128 + 8);   // header, (func, group) key, 16 counts, list node
  EXPECT_EQ(p.per_function_max, 200u + 2 * 76 * 192);  // time and self-time histograms
  EXPECT_EQ(p.reserved_bytes, (16384u + 2097152u) * 16);  // 10,000 and 1,520,000 rounded up to 2^k
  // pairing map (24-byte key, 64-byte frame) + goroutines (16-byte key, 32-byte state), 65,536 default
  EXPECT_EQ(p.in_flight_bytes, 262144ull * (48 + 24 + 64) + 262144ull * 16 + 65536ull * (48 + 16 + 40) + 65536ull * 16);
  // caller -> callee pairs: 16 per function; header, 8-byte key, 16-byte value, list node
  EXPECT_EQ(p.edge_bytes, 160000ull * (48 + 8 + 16 + 8) + 262144ull * 16);
  EXPECT_EQ(p.worst_case_bytes, p.in_flight_bytes + p.reserved_bytes + p.edge_bytes + 10000ull * p.per_function_max);
}

// What the previous layout (a per-CPU array of 9,792-byte records per declared function) took,
// against the new worst case: every bucket of every declared function used.
TEST(KernelMemoryPlan, WorstCaseIsIndependentOfCpusAndFarBelowThePerCpuLayout) {
  const uint64_t functions = 5784;  // caddy's module glob
  const auto p = plan_maps(functions, 262144);
  const uint64_t per_cpu_layout_64 = functions * 9792 * 64;
  const uint64_t histograms = p.worst_case_bytes - p.in_flight_bytes;
  // Two histograms per function since true time (time and self time): worst case < 10% of the
  // old 64-CPU figure (it was < 5% with one) and below the old 4-CPU figure.
  EXPECT_LT(histograms * 10, per_cpu_layout_64);
  EXPECT_LT(histograms, functions * 9792 * 4);
}

TEST(KernelMemoryCheck, TenThousandFunctionsFitTheDefaultLimitAHundredThousandDoNot) {
  constexpr uint64_t kDefault = uint64_t{512} << 20;
  EXPECT_NO_THROW(check_maps_fit(plan_maps(10000, 262144), kDefault, std::nullopt));
  try {
    check_maps_fit(plan_maps(100000, 262144), kDefault, std::nullopt);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    EXPECT_NE(m.find("100000 functions"), std::string::npos) << m;
    EXPECT_NE(m.find("limit of 512.0 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("fix: declare fewer functions"), std::string::npos) << m;
    EXPECT_NE(m.find("max_in_flight"), std::string::npos) << m;
  }
}

TEST(KernelMemoryCheck, ACgroupWithLessRoomFailsNamingItsLimitFile) {
  const auto p = plan_maps(1000, 262144);
  EXPECT_NO_THROW(check_maps_fit(p, uint64_t{1} << 40, CgroupRoom{p.worst_case_bytes, "/x/memory.max"}));
  try {
    check_maps_fit(p, uint64_t{1} << 40, CgroupRoom{p.worst_case_bytes - 1, "/sys/fs/cgroup/ci/memory.max"});
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("left by the cgroup (/sys/fs/cgroup/ci/memory.max)"), std::string::npos) << m;
    EXPECT_NE(m.find("raise the cgroup's memory.max"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace gate::probe
