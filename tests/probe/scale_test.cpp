// Scale, as root, against a generated program of thousands of small functions traced with one
// glob: exact counts for the called ones, no kernel memory at all for the uncalled ones, shared
// histograms exact under goroutines on every CPU, and kernel memory as the size model predicts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "common/error.hpp"
#include "probe/kernel_memory.hpp"
#include "probe/many_funcs.hpp"
#include "probe/probe_engine.hpp"
#include "probe/probe_fixture.hpp"
#include "runner/process.hpp"
#include "runner/target.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kFunctions = 3000;

struct Traced {
  runner::Target target;
  std::unique_ptr<probe::ProbeEngine> engine;
  std::map<std::string, uint64_t> truth;  // the program's own GATE_CALLS

  // Runs the program with `args` under the engine; fills truth.
  void run(const std::string& args) {
    const std::string out = fs::temp_directory_path() / ("gate-scale-test-" + std::to_string(getpid()) + ".out");
    runner::SpawnOptions so{target.binary + " " + args, "/", {}, out, "", true};
    auto child = runner::Child::spawn(so, [&](pid_t pid) { engine->track(pid); });
    ASSERT_EQ(child.wait(300, nullptr), runner::Child::WaitEnd::kExited);
    ASSERT_EQ(child.status(), 0);
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    fs::remove(out);
    const std::string text = ss.str();
    const auto pos = text.find("GATE_CALLS ");
    ASSERT_NE(pos, std::string::npos) << text;
    const auto j = nlohmann::json::parse(text.substr(pos + 11, text.find('\n', pos) - pos - 11));
    truth.clear();
    for (const auto& [k, v] : j.items()) truth[k] = v.get<uint64_t>();
  }
};

Traced attach(const std::string& glob) {
  Traced t;
  t.target = runner::prepare_target(manyfuncs_binary(kFunctions, probe_toolchain()), {glob});
  t.engine = std::make_unique<probe::ProbeEngine>(t.target.binary, static_cast<uint32_t>(t.target.functions.size()),
                                                  t.target.sites, probe::EngineOptions{});
  return t;
}

class Scale : public ::testing::Test {
 protected:
  void SetUp() override { GATE_REQUIRE_ROOT(); }
};

TEST_F(Scale, GlobOverThousandsOfFunctionsCountsExactlyAndAllocatesOnlyForCalledOnes) {
  Traced t = attach("main.f*");
  ASSERT_EQ(t.target.functions.size(), static_cast<size_t>(kFunctions));
  t.engine->collect_and_reset();
  EXPECT_TRUE(t.engine->functions_in_kernel().empty()) << "memory held before any call";

  // Every 3rd function, function k called 2*(1+k%4) times: distinct counts catch a mixed-up id.
  ASSERT_NO_FATAL_FAILURE(t.run("-stride 3 -n 2 -vary"));
  std::set<uint32_t> called;
  for (const auto& f : t.target.functions)
    if (t.truth.at(f.name) > 0) called.insert(f.id);
  ASSERT_EQ(called.size(), static_cast<size_t>(kFunctions / 3));

  const auto held = t.engine->functions_in_kernel();
  EXPECT_EQ(std::set<uint32_t>(held.begin(), held.end()), called) << "kernel memory for an uncalled function";

  const auto counters = t.engine->collect_and_reset();
  for (const auto& f : t.target.functions) {
    const auto& c = counters.at(f.id);
    ASSERT_EQ(c.calls, t.truth.at(f.name)) << f.name;
    uint64_t in_buckets = 0;
    for (const auto& [b, n] : c.buckets) in_buckets += n;
    EXPECT_EQ(in_buckets, c.calls) << f.name;
    EXPECT_EQ(c.unmatched_returns + c.abandoned_entries + c.open_entries + c.dropped, 0u) << f.name;
    if (c.calls) {
      EXPECT_GT(c.min_ns, 0u) << f.name;
      EXPECT_LE(c.min_ns, c.max_ns) << f.name;
      EXPECT_LE(c.min_ns * c.calls, c.sum_ns) << f.name;
      EXPECT_GE(c.max_ns * c.calls, c.sum_ns) << f.name;
    }
  }
  EXPECT_TRUE(t.engine->functions_in_kernel().empty()) << "read-and-reset left entries behind";
}

// Goroutines on every CPU calling the same functions at once: the shared records and histogram
// groups are updated with atomic adds, so nothing is lost to a race.
TEST_F(Scale, ConcurrentGoroutinesOnEveryCpuLoseNoCount) {
  Traced t = attach("main.f000??");  // f00000 ... f00099
  const int goroutines = std::max(2u, 2 * std::thread::hardware_concurrency());
  ASSERT_NO_FATAL_FAILURE(t.run("-count 100 -n 200 -goroutines " + std::to_string(goroutines)));
  const auto counters = t.engine->collect_and_reset();
  for (const auto& f : t.target.functions) {
    ASSERT_EQ(t.truth.at(f.name), 200u * goroutines) << f.name;
    EXPECT_EQ(counters.at(f.id).calls, t.truth.at(f.name)) << f.name;
    uint64_t in_buckets = 0;
    for (const auto& [b, n] : counters.at(f.id).buckets) in_buckets += n;
    EXPECT_EQ(in_buckets, counters.at(f.id).calls) << f.name;
  }
}

// The kernel's own accounting (fdinfo memlock) matches the size model of kernel_memory.hpp, whose
// only CPU-dependent part is a few locks: the memory a run takes is bytes per called function and
// per used histogram group, whatever the CPU count (the check computes what more CPUs would add).
TEST_F(Scale, KernelMemoryFollowsCalledFunctionsAsModelled) {
  Traced t = attach("main.f*");
  const auto plan = probe::plan_maps(kFunctions, probe::EngineOptions{}.max_in_flight);
  t.engine->collect_and_reset();
  const auto empty = t.engine->kernel_memory();
  ASSERT_NO_FATAL_FAILURE(t.run("-stride 10 -n 3"));
  const auto used = t.engine->kernel_memory();
  EXPECT_EQ(used.functions, static_cast<uint64_t>(kFunctions / 10));
  EXPECT_GE(used.groups, used.functions);
  const uint64_t modelled = used.functions * plan.record_bytes + used.groups * plan.group_bytes;
  EXPECT_EQ(used.histogram_bytes - empty.histogram_bytes, modelled);
  // Empty maps hold the reserved bucket arrays plus small fixed parts (map headers, 32 bytes of
  // locks per CPU per map): nothing per declared function beyond the model's reservation.
  const uint64_t ncpus = std::thread::hardware_concurrency();
  EXPECT_GE(empty.histogram_bytes, plan.reserved_bytes);
  EXPECT_LE(empty.histogram_bytes, plan.reserved_bytes + 2 * (4096 + 32 * ncpus));
  std::printf("[ scale ] %d declared, %llu called: %llu groups, %.1f KiB of histograms (%.1f KiB reserved)\n",
              kFunctions, static_cast<unsigned long long>(used.functions), static_cast<unsigned long long>(used.groups),
              used.histogram_bytes / 1024.0, empty.histogram_bytes / 1024.0);
  t.engine->collect_and_reset();
}

// A configuration whose maps could outgrow the limit fails before anything is loaded, with the
// size and the fix, as a configuration error (exit 2).
TEST_F(Scale, MapsAboveTheLimitFailBeforeLoading) {
  const auto target = runner::prepare_target(manyfuncs_binary(kFunctions, probe_toolchain()), {"main.f*"});
  probe::EngineOptions o;
  o.max_kernel_memory = uint64_t{32} << 20;  // 3,000 functions need up to ~70 MiB
  try {
    probe::ProbeEngine e(target.binary, static_cast<uint32_t>(target.functions.size()), target.sites, o);
    FAIL() << "attached although the maps may need more than the limit";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    EXPECT_NE(m.find("BPF maps: need up to"), std::string::npos) << m;
    EXPECT_NE(m.find("3000 functions"), std::string::npos) << m;
    EXPECT_NE(m.find("limit of 32.0 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("fix: declare fewer functions"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace gate::testing
