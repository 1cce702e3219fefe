// run_gate: fork, redirect stdout/stderr to files, exec the gate binary, collect the outcome.
#include "support/gate_cli.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gate::testing {

namespace fs = std::filesystem;

CliOutcome run_gate(const std::vector<std::string>& args, const CliOptions& options) {
  static std::atomic<int> seq{0};
  const fs::path dir = fs::temp_directory_path() /
                       ("gate-cli-" + std::to_string(getpid()) + "-" + std::to_string(seq.fetch_add(1)));
  fs::create_directories(dir);
  const std::string o = (dir / "out").string(), e = (dir / "err").string();
  std::vector<std::string> argv_s = options.prefix;
  argv_s.push_back(GATE_BINARY_DIR "/gate/cli/gate");
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [k, v] : options.env) setenv(k.c_str(), v.c_str(), 1);
    if (!freopen(o.c_str(), "w", stdout) || !freopen(e.c_str(), "w", stderr)) _exit(126);
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (options.during) options.during(pid);
  int st = 0;
  waitpid(pid, &st, 0);
  CliOutcome r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(o);
  r.err = slurp(e);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace gate::testing
