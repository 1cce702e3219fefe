// Process control for workloads: fork + start gate + exec, pidfd/signalfd waiting, group kill.
#include "runner/process.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/subprocess.hpp"

namespace gate::runner {

namespace {

sigset_t watched_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);
  return s;
}

bool has_shell_syntax(const std::string& cmd) {
  return cmd.find_first_of("|&;<>()$`\\\"'*?[#~=%{}\n") != std::string::npos;
}

std::vector<std::string> split_words(const std::string& cmd) {
  std::istringstream in(cmd);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

// A /proc file's first bytes ("" when it is gone): stat lines fit.
std::string read_small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// What the child writes to the errno pipe when it could not become SpawnOptions::as: -(this +
// errno). Other negative values: the set-up before exec failed; positive: exec's errno.
constexpr int kBecomeFailed = 100000;

// The child's side of Child::spawn: own process group, dies with gate, waits at the start gate
// until gate has tracked it, then redirects and execs. Only async-signal-safe calls.
[[noreturn]] void exec_held_child(const SpawnOptions& o, std::vector<char*>& argv, std::vector<char*>& envp,
                                  const std::string& out, const std::string& errp, const int gate_pipe[2],
                                  int errno_fd, pid_t parent) {
  setpgid(0, 0);
  if (o.die_with_gate) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
  }
  sigset_t s = watched_signals();
  sigprocmask(SIG_UNBLOCK, &s, nullptr);
  char c;
  ::close(gate_pipe[1]);
  while (::read(gate_pipe[0], &c, 1) < 0 && errno == EINTR) {
  }
  int fo = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int fe = ::open(errp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int fi = ::open("/dev/null", O_RDONLY);
  if (fo < 0 || fe < 0 || fi < 0 || (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0)) {
    int e = -errno;  // negative: the set-up before exec failed, not the program's exec
    (void)!::write(errno_fd, &e, sizeof e);
    _exit(127);
  }
  dup2(fi, 0);
  dup2(fo, 1);
  dup2(fe, 2);
  if (o.as) {
    if (const int e = become(*o.as)) {
      const int code = -kBecomeFailed - e;  // below kBecomeFailed: the change of user failed
      (void)!::write(errno_fd, &code, sizeof code);
      _exit(127);
    }
    if (o.die_with_gate) {  // a change of credentials clears the parent-death signal
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
    }
  }
  if (o.start_stopped) raise(SIGSTOP);  // gate lets it go with SIGCONT at its first slice
  execvpe(argv[0], argv.data(), envp.data());
  int e = errno;
  (void)!::write(errno_fd, &e, sizeof e);
  _exit(127);
}

}  // namespace

SignalWatch::SignalWatch() {
  sigset_t s = watched_signals();
  sigprocmask(SIG_BLOCK, &s, nullptr);
  fd_ = signalfd(-1, &s, SFD_CLOEXEC | SFD_NONBLOCK);
}

SignalWatch::~SignalWatch() {
  if (fd_ >= 0) ::close(fd_);
  sigset_t s = watched_signals();
  sigprocmask(SIG_UNBLOCK, &s, nullptr);
}

int SignalWatch::poll_signal() {
  signalfd_siginfo si;
  while (fd_ >= 0 && ::read(fd_, &si, sizeof si) == sizeof si) {
    if (!received_) received_ = static_cast<int>(si.ssi_signo);
  }
  return received_;
}

Child Child::spawn(const SpawnOptions& o, const std::function<void(pid_t)>& on_forked) {
  int gate_pipe[2], err_pipe[2];
  if (pipe2(gate_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw Error::make("workload '" + o.command + "'", std::string("cannot create pipes: ") + std::strerror(errno),
                      "", ExitCode::kMeasure);
  }
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> words = has_shell_syntax(o.command) ? std::vector<std::string>{"/bin/sh", "-c", o.command}
                                                               : split_words(o.command);
  if (words.empty()) throw Error::make("workload", "is an empty command", "set workload: in gate.yaml");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_store = environment_with(o.env);
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string out = o.stdout_path.empty() ? "/dev/null" : o.stdout_path;
  const std::string errp = o.stderr_path.empty() ? "/dev/null" : o.stderr_path;
  const pid_t parent = getpid();

  pid_t pid = fork();
  if (pid < 0) {
    throw Error::make("workload '" + o.command + "'", std::string("fork failed: ") + std::strerror(errno), "",
                      ExitCode::kMeasure);
  }
  if (pid == 0) exec_held_child(o, argv, envp, out, errp, gate_pipe, err_pipe[1], parent);
  ::close(gate_pipe[0]);
  ::close(err_pipe[1]);
  setpgid(pid, pid);  // also from here: no race with the child's own call
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  Child child(pid, pidfd);
  try {
    if (on_forked) on_forked(pid);
  } catch (...) {
    ::close(gate_pipe[1]);
    ::close(err_pipe[0]);
    child.stop(SIGKILL, 0);
    throw;
  }
  ::close(gate_pipe[1]);  // releases the child
  child.command_ = o.command;
  child.cwd_ = o.cwd;
  child.as_uid_ = o.as ? o.as->uid : 0;
  child.program_ = words[0];
  if (o.start_stopped && child.wait_stopped_before_exec()) {
    child.exec_errno_fd_ = err_pipe[0];  // exec (or its failure) comes at the first resume()
    return child;
  }
  child.check_exec(err_pipe[0]);
  return child;
}

// start_stopped: waits for the child's own SIGSTOP; false when it exited before (its errno is
// then in the pipe).
bool Child::wait_stopped_before_exec() {
  int st = 0;
  pid_t r;
  while ((r = waitpid(pid_, &st, WUNTRACED)) < 0 && errno == EINTR) {
  }
  if (r == pid_ && WIFSTOPPED(st)) return true;
  if (r == pid_) {
    exited_ = true;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
  }
  return false;
}

// Reads the child's exec errno from the pipe that closes at a successful exec; throws on failure.
void Child::check_exec(int errno_fd) {
  int child_errno = 0;
  ssize_t n;
  while ((n = ::read(errno_fd, &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  ::close(errno_fd);
  if (n == sizeof child_errno && child_errno <= -kBecomeFailed) {
    reap(true);
    throw Error::make("workload '" + command_ + "'",
                      "cannot run as uid " + std::to_string(as_uid_) + ": " + std::strerror(-child_errno - kBecomeFailed),
                      "gate needs CAP_SETUID and CAP_SETGID to start it as another user: run gate as root, or "
                      "set run_as: to gate's own user",
                      ExitCode::kMeasure);
  }
  if (n == sizeof child_errno && child_errno < 0) {
    reap(true);
    throw Error::make("workload '" + command_ + "'",
                      std::string("cannot be set up: opening /dev/null or its output files, or entering ") + cwd_ +
                          ": " + std::strerror(-child_errno),
                      "check that " + cwd_ + " and /dev/null exist (a chroot or container needs /dev/null)",
                      ExitCode::kMeasure);
  }
  if (n == sizeof child_errno) {
    reap(true);
    throw Error::make("workload '" + command_ + "'",
                      std::string("cannot be started: ") + std::strerror(child_errno) + " (" + program_ + ")",
                      child_errno == ENOENT ? "check the command and that the build step produced it"
                                            : "check the working directory " + cwd_,
                      ExitCode::kMeasure);
  }
}

namespace {

// Processes whose process group is pgid (/proc/PID/stat field 5).
std::vector<pid_t> group_members(pid_t pgid) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string stat = read_small_file(std::string("/proc/") + e->d_name + "/stat");
    const auto close = stat.rfind(')');  // comm may hold spaces and parentheses
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0, pgrp = 0;
    if (sscanf(stat.c_str() + close + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid)
      out.push_back(static_cast<pid_t>(atoi(e->d_name)));
  }
  closedir(d);
  return out;
}

// "" when every thread of pid is stopped, dead (or pid is gone) or in an uninterruptible wait
// (state D: it runs no user code, and the pending stop holds it before it could; a vfork parent
// waits so while its child is stopped before exec), else the first one that is not, as
// "pid/tid (comm) state S".
std::string running_thread(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return "";
  std::string running;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string stat = read_small_file(dir + "/" + e->d_name + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size()) continue;
    const char state = stat[close + 2];
    if (state != 'T' && state != 't' && state != 'Z' && state != 'X' && state != 'D') {
      running = std::to_string(pid) + "/" + e->d_name + " " + stat.substr(stat.find(' ') + 1, close - stat.find(' ')) +
                " state " + state;
      break;
    }
  }
  closedir(d);
  return running;
}

}  // namespace

void Child::pause(double timeout_s) {
  if (exited_ || pid_ <= 0) return;
  ::kill(-pid_, SIGSTOP);
  const double deadline = now_s() + timeout_s;
  while (true) {
    std::string running;
    for (const pid_t p : group_members(pid_))
      if (!(running = running_thread(p)).empty()) break;
    if (running.empty()) return;
    if (now_s() > deadline) {
      throw Error::make("workload '" + command_ + "' (pid " + std::to_string(pid_) + ")",
                        "not every thread stopped within " + std::to_string(static_cast<int>(timeout_s)) +
                            " s of SIGSTOP to its process group: " + running,
                        "run without --slice-ms", ExitCode::kMeasure);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void Child::resume() {
  if (exited_ || pid_ <= 0) return;
  ::kill(-pid_, SIGCONT);
  if (exec_errno_fd_ >= 0) {
    const int fd = exec_errno_fd_;
    exec_errno_fd_ = -1;
    check_exec(fd);
  }
}

Child::Child(Child&& o) noexcept
    : pid_(o.pid_),
      pidfd_(o.pidfd_),
      status_(o.status_),
      exited_(o.exited_),
      exec_errno_fd_(o.exec_errno_fd_),
      command_(std::move(o.command_)),
      cwd_(std::move(o.cwd_)),
      program_(std::move(o.program_)),
      as_uid_(o.as_uid_) {
  o.pid_ = -1;
  o.pidfd_ = -1;
  o.exec_errno_fd_ = -1;
}

Child::~Child() {
  if (pid_ > 0 && !exited_) stop(SIGKILL, 0);
  if (pidfd_ >= 0) ::close(pidfd_);
  if (exec_errno_fd_ >= 0) ::close(exec_errno_fd_);
}

bool Child::reap(bool block) {
  if (exited_ || pid_ <= 0) return true;
  int st = 0;
  pid_t r;
  struct rusage ru {};
  while ((r = wait4(pid_, &st, block ? 0 : WNOHANG, &ru)) < 0 && errno == EINTR) {
  }
  if (r == pid_) {
    exited_ = true;
    cpu_s_ = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
    return true;
  }
  return false;
}

bool Child::running() { return !reap(false); }

Child::WaitEnd Child::wait(double timeout_s, SignalWatch* signals) {
  const double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
  while (true) {
    if (reap(false)) return WaitEnd::kExited;
    if (signals && signals->poll_signal()) return WaitEnd::kSignal;
    double left = deadline ? deadline - now_s() : 1.0;
    if (deadline && left <= 0) return WaitEnd::kTimeout;
    pollfd fds[2];
    int n = 0;
    if (pidfd_ >= 0) fds[n++] = {pidfd_, POLLIN, 0};
    if (signals && signals->fd() >= 0) fds[n++] = {signals->fd(), POLLIN, 0};
    int ms = pidfd_ >= 0 ? static_cast<int>(std::min(left, 1.0) * 1000) + 1 : 20;
    ::poll(fds, n, ms);
  }
}

void Child::stop(int sig, double grace_s) {
  if (exited_ || pid_ <= 0) return;
  ::kill(-pid_, sig);
  ::kill(pid_, sig);
  const double deadline = now_s() + grace_s;
  while (now_s() < deadline) {
    if (reap(false)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid_, SIGKILL);  // the whole group: also what the workload started
  if (!exited_) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
}

std::string file_tail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<size_t>(in.tellg());
  // One byte more than asked: tail_lines then sees the cut and starts after a line break.
  const size_t start = size > max_bytes ? size - max_bytes - 1 : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string s(size - start, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return tail_lines(s, max_bytes);
}

int run_shell(const std::string& command, const std::string& cwd,
              const std::map<std::string, std::string>& env, std::string* log, SignalWatch* signals,
              const Credentials* as) {
  ProcessSpec spec;
  spec.argv = has_shell_syntax(command) ? std::vector<std::string>{"/bin/sh", "-c", command} : split_words(command);
  if (spec.argv.empty()) throw Error::make("command", "is empty", "set build: in gate.yaml");
  spec.cwd = cwd;
  spec.env = env;
  spec.merge_stderr = true;
  spec.own_group = true;
  spec.as = as;
  if (signals) {
    spec.cancel_fd = signals->fd();
    spec.cancelled = [signals] { return signals->poll_signal() != 0; };
  }
  const ProcessResult r = run_process(spec);
  if (r.exec_errno) {
    throw Error::make("command '" + command + "'",
                      std::string("cannot be started: ") + std::strerror(r.exec_errno) + " (" + spec.argv[0] + ")",
                      r.exec_errno == ENOENT ? "check the command and that the build step produced it"
                                             : "check the working directory " + cwd,
                      ExitCode::kMeasure);
  }
  if (log) *log = tail_lines(r.out, 4000);
  if (r.cancelled) return -1;
  return r.status;
}

bool wait_tcp_ready(const std::string& host_port, double timeout_s, const std::function<bool()>& alive) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos) {
    throw Error::make("service.ready_tcp '" + host_port + "'", "is not host:port", "e.g. 127.0.0.1:8080");
  }
  const std::string host = host_port.substr(0, colon), port = host_port.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0 || !res) {
    throw Error::make("service.ready_tcp '" + host_port + "'", "does not resolve", "use a numeric loopback address");
  }
  const double deadline = now_s() + timeout_s;
  bool ok = false;
  while (now_s() < deadline && (!alive || alive())) {
    int s = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0 && ::connect(s, res->ai_addr, res->ai_addrlen) == 0) ok = true;
    if (s >= 0) ::close(s);
    if (ok) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  freeaddrinfo(res);
  return ok;
}

}  // namespace gate::runner
