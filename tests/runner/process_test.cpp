// The runner's build step (run_shell) over gate::run_process: status, the output's tail, a command
// that cannot start named as the command (not as a "workload"). No root.
#include "runner/process.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace gate::runner {
namespace {

// Child::cpu_seconds from wait4: a child that spins has CPU time, one that sleeps as long has
// next to none. Asserted as an order, not a figure: a loaded machine slows the spin, not its sign.
TEST(ChildCpu, SpinningChildHasMoreCpuThanASleepingOne) {
  auto cpu_of = [](const std::string& command) {
    Child c = Child::spawn(SpawnOptions{command, "/tmp", {}, "", "", true, false}, nullptr);
    EXPECT_EQ(c.cpu_seconds(), -1) << "unknown before it exited";
    EXPECT_EQ(c.wait(60, nullptr), Child::WaitEnd::kExited);
    EXPECT_EQ(c.status(), 0);
    return c.cpu_seconds();
  };
  const double spin = cpu_of("sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'");
  const double sleep = cpu_of("sleep 0.3");
  EXPECT_GT(spin, 0.05) << "300,000 shell loop steps take tens of milliseconds of CPU at least";
  EXPECT_LT(sleep, spin / 2) << "sleep " << sleep << " s CPU, spin " << spin << " s";
}

TEST(RunShell, StatusAndMergedOutput) {
  std::string log;
  EXPECT_EQ(run_shell("echo built; echo warning >&2; exit 3", "/tmp", {{"X", "1"}}, &log, nullptr), 3);
  EXPECT_EQ(log, "built\nwarning\n");
  EXPECT_EQ(run_shell("true", "/tmp", {}, &log, nullptr), 0);
}

TEST(RunShell, KeepsTheTailOfALongOutput) {
  std::string log;
  EXPECT_EQ(run_shell("seq 1 20000", "/tmp", {}, &log, nullptr), 0);
  EXPECT_LE(log.size(), 4000u);
  EXPECT_EQ(log.rfind("...\n", 0), 0u) << "marks the cut";
  EXPECT_NE(log.find("\n20000\n"), std::string::npos);
}

TEST(RunShell, ACommandThatCannotStartIsAnErrorNamingIt) {
  std::string log;
  try {
    run_shell("gate-no-such-build-tool --all", "/tmp", {}, &log, nullptr);
    FAIL() << "expected gate::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("command 'gate-no-such-build-tool --all': cannot be started", 0), 0u) << what;
    EXPECT_EQ(e.exit_code(), ExitCode::kMeasure);
  }
}

TEST(FileTail, CutsAtALineBreak) {
  const std::string path = ::testing::TempDir() + "/gate-file-tail.txt";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs("first line\nsecond line\n", f);
    std::fclose(f);
  }
  EXPECT_EQ(file_tail(path, 100), "first line\nsecond line\n");
  EXPECT_EQ(file_tail(path, 15), "...\nsecond line\n");
  EXPECT_EQ(file_tail(path + ".missing", 15), "");
}

}  // namespace
}  // namespace gate::runner
