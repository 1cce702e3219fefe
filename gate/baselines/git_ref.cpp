// --baseline-ref: files read from a git commit with `git cat-file` (through run_process, no
// shell), and the notice for a branch that changed its own baseline.
#include "baselines/git_ref.hpp"

#include <cstring>
#include <filesystem>

#include "baselines/baseline_file.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/subprocess.hpp"

namespace gate::baselines {
namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
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

}  // namespace

GitOutput run_git(const std::vector<std::string>& args, const std::string& dir) {
  ProcessSpec spec;
  spec.argv = {"git", "-C", dir};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = {{"LC_ALL", "C"},                 // git's messages in English: they end up in gate's errors
              {"GIT_TERMINAL_PROMPT", "0"}};  // never wait for a password
  const ProcessResult p = run_process(spec);
  if (p.exec_errno) {
    throw Error::make("git", std::string("cannot be run (") + std::strerror(p.exec_errno) + ")",
                      "--baseline-ref reads files from git history: install git (apt-get install git)");
  }
  return {p.status, p.out, p.err};
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

ResultFile load_at_ref(const std::string& ref, const std::string& path, const std::string& config_path,
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
  require_usable(r, where, "record it again with gate record and commit it to " + ref);
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

}  // namespace gate::baselines
