// exclude_preemption against a real Go program, as root: probetarget's crunch (fixed CPU work) and
// nap (a raw nanosleep) run on one CPU shared with a busy thread of this test, so the scheduler
// preempts crunch for about half its wall time. Checked: with the option, crunch's recorded time
// loses most of what preemption added (each call's raw window is kept beside it) and nap's sleep
// stays in; without it, nothing is taken out; every call is counted either way.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <optional>
#include <thread>

#include "probe/probe_fixture.hpp"

namespace gate::testing {
namespace {

// Pins the calling thread (and so the workload it forks, and the spinner it starts: both inherit
// the mask) to CPU 0 and keeps a thread spinning there for as long as it lives; restores the old
// mask after.
class CpuHog {
 public:
  CpuHog() {
    sched_getaffinity(0, sizeof old_, &old_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
    spinner_ = std::thread([this] {
      while (!stop_.load(std::memory_order_relaxed)) {
      }
    });
  }
  ~CpuHog() {
    stop_ = true;
    spinner_.join();
    sched_setaffinity(0, sizeof old_, &old_);
  }
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t old_{};
  bool pinned_ = false;
  std::atomic<bool> stop_{false};
  std::thread spinner_;
};

struct Sums {
  uint64_t calls = 0, time_ns = 0, raw_ns = 0;
};

Sums sums(const Measured& m, const std::string& fn) {
  Sums s;
  for (size_t r = 0; r < m.result.runs.size(); ++r) {
    const auto& f = m.fn(fn, r);
    s.calls += f.calls;
    s.time_ns += f.sum_ns;
    s.raw_ns += f.true_time.raw_sum_ns;
  }
  return s;
}

MeasureArgs preempt_args(bool exclude) {
  MeasureArgs a;
  // ~40 crunch calls of a few ms of CPU each (preempted several times per call on a shared CPU),
  // each followed by a 5 ms nap. GOMAXPROCS=1: one thread runs the Go code.
  a.args = "preempt -n 40 -rounds 3000000 -ms 5";
  a.functions = {"main.crunch", "main.nap"};
  a.env = {{"GOMAXPROCS", "1"}};
  a.exclude_preemption = exclude;
  return a;
}

// probetarget's preempt mode measured on CPU 0 beside the spinning thread; empty when this process
// cannot pin itself.
std::optional<Measured> measured_beside_hog(bool exclude) {
  CpuHog hog;
  if (!hog.pinned()) return std::nullopt;
  return measure_workload(preempt_args(exclude));
}

TEST(ExcludePreemption, TakesOutPreemptionAndKeepsSleep) {
  GATE_REQUIRE_ROOT();
  const std::optional<Measured> measured = measured_beside_hog(true);
  ASSERT_TRUE(measured) << "cannot pin to CPU 0";
  const Measured& m = *measured;
  EXPECT_TRUE(m.result.context.preemption_excluded);
  const Sums crunch = sums(m, "main.crunch"), nap = sums(m, "main.nap");
  const auto& run = m.result.runs.at(0);
  std::printf("crunch: %llu calls, wall %.2f ms/call, recorded %.2f ms/call; nap: wall %.2f, recorded %.2f; "
              "preempted_calls %llu, thread_changed_calls %llu\n",
              static_cast<unsigned long long>(crunch.calls), crunch.raw_ns / 1e6 / crunch.calls,
              crunch.time_ns / 1e6 / crunch.calls, nap.raw_ns / 1e6 / nap.calls, nap.time_ns / 1e6 / nap.calls,
              static_cast<unsigned long long>(run.preempted_calls),
              static_cast<unsigned long long>(run.thread_changed_calls));
  EXPECT_EQ(crunch.calls, m.truth.at("main.crunch"));
  EXPECT_EQ(nap.calls, m.truth.at("main.nap"));
  // Sharing one CPU with a spinning thread, crunch runs about half of its wall time: with the
  // preemption out, its recorded time is well under its window (0.8 leaves room for a scheduler
  // that favours the woken Go thread), and every call whose time lost anything was counted.
  EXPECT_LT(crunch.time_ns, 0.8 * crunch.raw_ns);
  EXPECT_GE(run.preempted_calls, crunch.calls / 2);
  // A nap is asleep, not preempted: its 5 ms stay in, whole (only the moments it ran around the
  // sleep can be preempted: seen, ~0.7 ms of its 6.6 ms window on average).
  EXPECT_GE(nap.time_ns, nap.calls * 5'000'000);
  // One goroutine on one thread (GOMAXPROCS=1, the nap stays in its syscall): a call that changed
  // thread would keep its preemption, and would show here.
  EXPECT_LE(run.thread_changed_calls, (crunch.calls + nap.calls) / 10);
}

TEST(ExcludePreemption, OffMeansWallTimeWhole) {
  GATE_REQUIRE_ROOT();
  const std::optional<Measured> measured = measured_beside_hog(false);
  ASSERT_TRUE(measured) << "cannot pin to CPU 0";
  const Measured& m = *measured;
  EXPECT_FALSE(m.result.context.preemption_excluded);
  const Sums crunch = sums(m, "main.crunch");
  EXPECT_EQ(crunch.calls, m.truth.at("main.crunch"));
  // No calibration and no traced descendants: the recorded time is the window itself.
  EXPECT_EQ(crunch.time_ns, crunch.raw_ns);
  EXPECT_EQ(m.result.runs.at(0).preempted_calls, 0u);
  EXPECT_EQ(m.result.runs.at(0).thread_changed_calls, 0u);
}

}  // namespace
}  // namespace gate::testing
