// run_process: exit status, captured output, cwd and environment, exec failures as data, the
// `during` callback and cancellation; and tail_lines. No root; runs /bin/sh and coreutils.
#include "common/subprocess.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

namespace gate {
namespace {

ProcessResult sh(const std::string& script, ProcessSpec spec = {}) {
  spec.argv = {"/bin/sh", "-c", script};
  return run_process(spec);
}

TEST(Subprocess, CapturesBothOutputsAndTheStatus) {
  const auto r = sh("echo out; echo err >&2; exit 7");
  EXPECT_EQ(r.status, 7);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exec_errno, 0);
  EXPECT_FALSE(r.cancelled);
}

TEST(Subprocess, MergedOutputKeepsTheOrder) {
  ProcessSpec s;
  s.merge_stderr = true;
  const auto r = sh("echo 1; echo 2 >&2; echo 3", s);
  EXPECT_EQ(r.out, "1\n2\n3\n");
  EXPECT_TRUE(r.err.empty());
}

TEST(Subprocess, OutputLargerThanAPipeIsNotLost) {
  const auto r = sh("head -c 1000000 /dev/zero; head -c 300000 /dev/zero >&2");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.size(), 1000000u);
  EXPECT_EQ(r.err.size(), 300000u);
}

TEST(Subprocess, SignalDeathIs128PlusTheSignal) { EXPECT_EQ(sh("kill -9 $$").status, 128 + SIGKILL); }

TEST(Subprocess, WorkingDirectoryAndEnvironment) {
  ProcessSpec s;
  s.cwd = "/tmp";
  s.env = {{"GATE_SUBPROCESS_TEST", "x y"}};
  const auto r = sh("pwd; echo \"$GATE_SUBPROCESS_TEST\"; echo \"${PATH:+has path}\"", s);
  EXPECT_EQ(r.out, "/tmp\nx y\nhas path\n");
  s.clear_env = true;
  s.argv = {"/usr/bin/env"};
  EXPECT_EQ(run_process(s).out, "GATE_SUBPROCESS_TEST=x y\n") << "clear_env: only env";
}

TEST(Subprocess, AProgramThatCannotStartIsReportedByErrno) {
  ProcessSpec s;
  s.argv = {"gate-no-such-program-xyz"};
  auto r = run_process(s);
  EXPECT_EQ(r.exec_errno, ENOENT);
  EXPECT_EQ(r.status, 127);
  s.argv = {"/bin/true"};
  s.cwd = "/no/such/dir";
  r = run_process(s);
  EXPECT_EQ(r.exec_errno, ENOENT) << "a missing working directory";
  // A program that exits 127 by itself started fine.
  EXPECT_EQ(sh("exit 127").exec_errno, 0);
}

TEST(Subprocess, DuringRunsWhileTheProcessRuns) {
  ProcessSpec s;
  std::atomic<pid_t> seen{0};
  s.during = [&](pid_t pid) {
    seen = pid;
    kill(pid, SIGTERM);
  };
  const auto r = sh("sleep 30", s);
  EXPECT_GT(seen.load(), 0);
  EXPECT_EQ(r.status, 128 + SIGTERM);
}

TEST(Subprocess, CancellationStopsTheWholeGroup) {
  const int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  ASSERT_GE(fd, 0);
  ProcessSpec s;
  s.own_group = true;
  s.cancel_fd = fd;
  s.cancelled = [fd] {
    uint64_t v = 0;
    return read(fd, &v, sizeof v) == sizeof v;
  };
  std::thread poke([fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const uint64_t one = 1;
    (void)!write(fd, &one, sizeof one);
  });
  const auto t0 = std::chrono::steady_clock::now();
  // The grandchild holds stdout open: only stopping the group ends the read.
  const auto r = sh("sleep 30 & echo started; wait", s);
  poke.join();
  close(fd);
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.out, "started\n");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST(Subprocess, TailLinesCutsAtALineBreak) {
  EXPECT_EQ(tail_lines("short", 10), "short");
  EXPECT_EQ(tail_lines("line one\nline two\n", 12), "...\nline two\n");
  EXPECT_EQ(tail_lines("abcdefgh", 3), "fgh") << "no line break: the bytes";
}

}  // namespace
}  // namespace gate
