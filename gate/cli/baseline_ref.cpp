// --baseline-ref: files read from a git commit with `git cat-file` (fork/exec, no shell), and the
// notices for a branch that changed its own baseline or thresholds.
#include "cli/baseline_ref.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "cli/verdict.hpp"
#include "common/error.hpp"

namespace gate::cli {
namespace fs = std::filesystem;

namespace {

constexpr const char* kExecFailed = "gate: cannot execute git: ";

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The closest existing directory at or above p (the baseline need not exist in the working tree).
fs::path existing_dir(fs::path p) {
  std::error_code ec;
  while (!p.empty() && !fs::is_directory(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return p.empty() ? fs::current_path() : p;
}

std::string band_text(const stats::Band& b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "+%g%% / -%g%%", b.regression * 100, b.improvement * 100);
  return buf;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

GitOutput run_git(const std::vector<std::string>& args, const std::string& dir) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw Error::make("git", std::string("cannot create a pipe: ") + std::strerror(errno), "");
  }
  const pid_t pid = fork();
  if (pid < 0) throw Error::make("git", std::string("cannot fork: ") + std::strerror(errno), "");
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    setenv("LC_ALL", "C", 1);             // git's messages in English: they end up in gate's errors
    setenv("GIT_TERMINAL_PROMPT", "0", 1);  // never wait for a password
    std::vector<std::string> full = {"git", "-C", dir};
    full.insert(full.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : full) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp("git", argv.data());
    const std::string msg = std::string(kExecFailed) + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  GitOutput r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  if (r.status == 127 && r.err.rfind(kExecFailed, 0) == 0) {
    throw Error::make("git", "cannot be run (" + trim(r.err.substr(std::strlen(kExecFailed))) + ")",
                      "--baseline-ref reads files from git history: install git (apt-get install git)");
  }
  return r;
}

FileAtRef read_at_ref(const std::string& ref, const std::string& path) {
  FileAtRef f;
  f.ref = ref;
  if (ref.empty() || ref[0] == '-') {
    throw Error::make("--baseline-ref '" + ref + "'", "is not a git revision",
                      "pass a branch, tag or commit, e.g. --baseline-ref origin/main");
  }
  const fs::path abs = fs::absolute(path).lexically_normal();
  const fs::path dir = existing_dir(abs.parent_path());
  const GitOutput top = run_git({"rev-parse", "--show-toplevel"}, dir.string());
  if (top.status != 0) {
    throw Error::make(path, "is not in a git repository (" + trim(top.err) + ")",
                      "--baseline-ref reads the file from git history: run gate inside the clone, or drop "
                      "--baseline-ref to use the working-tree file");
  }
  const fs::path root = fs::path(trim(top.out));
  std::error_code ec;
  const fs::path rel = fs::weakly_canonical(abs, ec).lexically_relative(fs::weakly_canonical(root, ec));
  if (rel.empty() || *rel.begin() == "..") {
    throw Error::make(path, "is outside the git repository " + root.string(),
                      "keep the file inside the repository whose history --baseline-ref reads");
  }
  f.repo_path = rel.generic_string();

  const GitOutput commit = run_git({"rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}"}, root.string());
  if (commit.status != 0) {
    throw Error::make("--baseline-ref " + ref, "does not name a commit in " + root.string(),
                      "fetch it first (git fetch origin " + ref.substr(ref.find('/') == std::string::npos ? 0 : ref.find('/') + 1) +
                          "; in CI check out the full history, e.g. actions/checkout with fetch-depth: 0), or pass an "
                          "existing branch, tag or commit");
  }
  f.commit = trim(commit.out);
  const std::string object = f.commit + ":" + f.repo_path;
  const GitOutput type = run_git({"cat-file", "-t", object}, root.string());
  if (type.status != 0) return f;  // not in that commit
  if (trim(type.out) != "blob") {
    throw Error::make(f.repo_path + " at " + ref, "is a " + trim(type.out) + ", not a file",
                      "pass the path of the file itself");
  }
  const GitOutput blob = run_git({"cat-file", "blob", object}, root.string());
  if (blob.status != 0) {
    throw Error::make(f.repo_path + " at " + ref, "cannot be read (" + trim(blob.err) + ")", "check the repository with git fsck");
  }
  f.exists = true;
  f.bytes = blob.out;
  return f;
}

ResultFile load_baseline_at_ref(const std::string& ref, const std::string& path, const std::string& config_path,
                                std::vector<std::string>& notices) {
  const FileAtRef f = read_at_ref(ref, path);
  const std::string where = ref + ":" + f.repo_path;
  const std::string short_commit = f.commit.substr(0, 12);
  if (!f.exists) {
    throw Error::make("baseline " + f.repo_path, "is not in " + ref + " (commit " + short_commit + ")",
                      "record a baseline and commit it to " + ref + " first (gate record -c " +
                          (config_path.empty() ? "gate.yaml" : config_path) + " --baseline " + path +
                          ", then git add and merge it), or check without --baseline-ref");
  }
  ResultFile r = result_from_json_text(f.bytes, where);
  if (r.partial) {
    throw Error::make("baseline " + where, "is a partial result (" + r.partial_reason + ")",
                      "a failed or interrupted run is never a baseline: record it again and commit it to " + ref);
  }
  if (r.runs.empty()) throw Error::make("baseline " + where, "holds no runs", "record it again with gate record");
  const auto local = read_file(path);
  if (!local) {
    notices.push_back("the baseline " + f.repo_path + " is missing from the working tree; the gate used the one in " +
                      ref + " (" + short_commit + ")");
  } else if (*local != f.bytes) {
    notices.push_back("this branch changes the baseline " + f.repo_path + "; the gate ignored that change and used the one in " +
                      ref + " (" + short_commit + ")");
  }
  return r;
}

void note_config_changes(const std::string& ref, const runner::Config& cfg, const std::vector<FunctionInfo>& functions,
                         std::vector<std::string>& notices) {
  const FileAtRef f = read_at_ref(ref, cfg.path);
  const std::string where = ref + ":" + f.repo_path;
  if (!f.exists) {
    notices.push_back("the config " + f.repo_path + " is new on this branch (not in " + ref +
                      "): its thresholds cannot be checked against " + ref);
    return;
  }
  const auto local = read_file(cfg.path);
  if (local && *local == f.bytes) return;

  // Parse REF's config with the same code: write it to a private temporary file.
  char tmpl[] = "/tmp/gate-ref-config-XXXXXX.yaml";
  const int fd = mkstemps(tmpl, 5);
  if (fd < 0) {
    notices.push_back("the config " + f.repo_path + " differs from " + where + " (not compared: cannot create a temporary file)");
    return;
  }
  const bool written = write(fd, f.bytes.data(), f.bytes.size()) == static_cast<ssize_t>(f.bytes.size());
  close(fd);
  stats::CompareOptions before, after;
  try {
    if (!written) throw Error("cannot write a temporary file");
    const runner::Config old_cfg = runner::load_config(tmpl);
    before = compare_options(&old_cfg, functions);
    after = compare_options(&cfg, functions);
  } catch (const Error& e) {
    unlink(tmpl);
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));
    notices.push_back("this branch changes the config " + f.repo_path + " and the version in " + ref +
                      " cannot be read to compare thresholds (" + why + ")");
    return;
  }
  unlink(tmpl);

  std::vector<std::string> changes;
  std::vector<std::string> qb, qa;
  for (const auto& q : before.quantiles) qb.push_back(q.name);
  for (const auto& q : after.quantiles) qa.push_back(q.name);
  if (qb != qa) changes.push_back("quantiles " + join(qb, ", ") + " -> " + join(qa, ", "));
  // Thresholds per (function, quantile), grouped by the change: a new default reads as one item.
  std::vector<std::string> names = qa;
  for (const auto& q : qb)
    if (std::find(names.begin(), names.end(), q) == names.end()) names.push_back(q);
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> moved;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& fn : functions)
    for (const auto& q : names) {
      const std::string b = band_text(before.thresholds.lookup(fn.name, q));
      const std::string a = band_text(after.thresholds.lookup(fn.name, q));
      if (a == b) continue;
      auto key = std::make_pair(b, a);
      if (!moved.count(key)) order.push_back(key);
      moved[key].push_back(fn.name + " " + q);
    }
  for (const auto& key : order) {
    const auto& which = moved[key];
    std::string item = "threshold " + key.first + " -> " + key.second + " for ";
    if (which.size() <= 2) item += join(which, ", ");
    else item += std::to_string(which.size()) + " function quantiles (" + which[0] + ", " + which[1] + ", ...)";
    changes.push_back(item);
  }
  if (before.calls_ratio_threshold != after.calls_ratio_threshold) {
    char b[96];
    std::snprintf(b, sizeof b, "calls_change %g%% -> %g%%", (before.calls_ratio_threshold - 1) * 100,
                  (after.calls_ratio_threshold - 1) * 100);
    changes.push_back(b);
  }
  if (before.calls_policy != after.calls_policy)
    changes.push_back(std::string("fail_on_calls_change ") +
                      (before.calls_policy == stats::CallsPolicy::kReport ? "false -> true" : "true -> false"));
  if (before.require_sufficient_data != after.require_sufficient_data)
    changes.push_back(std::string("fail_on_insufficient_data ") +
                      (before.require_sufficient_data ? "true -> false" : "false -> true"));
  if (changes.empty()) return;
  notices.push_back("this branch changes the thresholds in " + f.repo_path + " (compared with " + ref + "): " +
                    join(changes, "; ") + "; the gate applied the branch's settings");
}

}  // namespace gate::cli
