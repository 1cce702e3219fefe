// run_process: fork + exec with an errno pipe (exec failures are data, not a string to parse),
// poll over stdout/stderr, optional cancellation through a file descriptor.
#include "common/subprocess.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/clock.hpp"
#include "common/error.hpp"

extern char** environ;

namespace gate {

namespace {

// Everything the child needs, built before fork: after it only async-signal-safe calls are made.
struct ExecImage {
  std::vector<std::string> argv_store, env_store;
  std::vector<char*> argv, envp;
  explicit ExecImage(const ProcessSpec& s) : argv_store(s.argv), env_store(environment_with(s.env, s.clear_env)) {
    for (auto& a : argv_store) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
};

}  // namespace

int become(const Credentials& c) {
  if (setgroups(c.groups.size(), c.groups.data()) != 0) return errno;
  if (setresgid(c.gid, c.gid, c.gid) != 0) return errno;
  if (setresuid(c.uid, c.uid, c.uid) != 0) return errno;
  return 0;
}

namespace {

[[noreturn]] void exec_child(const ProcessSpec& s, ExecImage& img, int out_fd, int err_fd, int errno_fd, pid_t parent) {
  if (s.own_group) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
  }
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_UNBLOCK, &all, nullptr);  // gate may block SIGINT/SIGTERM for its signalfd
  const int in = open("/dev/null", O_RDONLY);
  if (in >= 0) dup2(in, STDIN_FILENO);
  dup2(out_fd, STDOUT_FILENO);
  dup2(s.merge_stderr ? out_fd : err_fd, STDERR_FILENO);
  if (!s.cwd.empty() && chdir(s.cwd.c_str()) != 0) {
    const int e = errno;
    (void)!write(errno_fd, &e, sizeof e);
    _exit(127);
  }
  if (s.as) {
    if (const int e = become(*s.as)) {
      (void)!write(errno_fd, &e, sizeof e);
      _exit(127);
    }
    // A change of credentials clears the parent-death signal: set it again.
    if (s.own_group) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
    }
  }
  execvpe(img.argv[0], img.argv.data(), img.envp.data());
  const int e = errno;
  (void)!write(errno_fd, &e, sizeof e);
  _exit(127);
}

// Reads both pipes until they close; on cancellation signals the child, then kills it 2 s later.
void drain(int out_fd, int err_fd, pid_t pid, const ProcessSpec& s, ProcessResult& r) {
  pollfd fds[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {s.cancel_fd, POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  const pid_t target = s.own_group ? -pid : pid;
  double kill_at = 0;
  char buf[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const int timeout_ms = kill_at ? 50 : -1;
    if (poll(fds, s.cancel_fd >= 0 && !r.cancelled ? 3 : 2, timeout_ms) < 0 && errno != EINTR) break;
    if (!r.cancelled && s.cancel_fd >= 0 && (fds[2].revents & POLLIN) && s.cancelled && s.cancelled()) {
      r.cancelled = true;
      kill(target, SIGTERM);
      kill_at = now_s() + 2;
    }
    if (kill_at && now_s() > kill_at) kill(target, SIGKILL);
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
      }
    }
  }
  if (r.cancelled) kill(target, SIGKILL);  // what the group left running must not outlive the build
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw Error::make("run_process", "was given no program", "pass argv[0]");
  int out_pipe[2], err_pipe[2], errno_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 || pipe2(errno_pipe, O_CLOEXEC) != 0) {
    throw Error::make(spec.argv[0], std::string("cannot be started: no pipe: ") + std::strerror(errno), "",
                      ExitCode::kMeasure);
  }
  ExecImage img(spec);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    throw Error::make(spec.argv[0], std::string("cannot be started: fork failed: ") + std::strerror(errno), "",
                      ExitCode::kMeasure);
  }
  if (pid == 0) exec_child(spec, img, out_pipe[1], err_pipe[1], errno_pipe[1], parent);
  if (spec.own_group) setpgid(pid, pid);  // also here: no race with the child's own call
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(errno_pipe[1]);
  ProcessResult r;
  std::thread during;
  if (spec.during) during = std::thread(spec.during, pid);
  drain(out_pipe[0], err_pipe[0], pid, spec, r);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (during.joinable()) during.join();
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
  int e = 0;
  if (read(errno_pipe[0], &e, sizeof e) == static_cast<ssize_t>(sizeof e)) r.exec_errno = e;
  close(errno_pipe[0]);
  return r;
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& env, bool clear) {
  std::vector<std::string> out;
  if (!clear)
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      if (!env.count(kv.substr(0, kv.find('=')))) out.push_back(kv);
    }
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::string tail_lines(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::string t = s.substr(s.size() - max_bytes);
  const size_t nl = t.find('\n');
  return nl == std::string::npos ? t : "..." + t.substr(nl);
}

}  // namespace gate
