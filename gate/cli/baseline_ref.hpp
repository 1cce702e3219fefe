// Trusted baselines: `--baseline-ref REF` reads the baseline from a git commit (e.g. the target
// branch) instead of the working tree, so a branch cannot loosen its own gate by editing it; and the
// notices that say when the branch did change its baseline or thresholds.
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"
#include "runner/config.hpp"

namespace gate::cli {

struct GitOutput {
  int status = -1;  // git's exit status
  std::string out;  // its stdout
  std::string err;  // its stderr
};
// Runs `git ARGS...` in dir (fork/exec, no shell). Throws gate::Error (exit 2) when git cannot be
// started at all (not installed).
GitOutput run_git(const std::vector<std::string>& args, const std::string& dir);

// A working-tree file as it is in commit REF.
struct FileAtRef {
  std::string ref;        // as given ("origin/main")
  std::string commit;     // the commit it names (full hash)
  std::string repo_path;  // the file's path inside the repository ("baselines/shop.json")
  bool exists = false;    // false: the file is not in that commit
  std::string bytes;      // its content when it exists
};
// Resolves `path` (absolute or relative to the current directory; it need not exist in the working
// tree) inside its git repository and reads it at REF. Throws gate::Error (exit 2) naming the cause
// and the fix when path is not in a git repository or REF does not name a commit; a file missing
// from REF is reported through `exists`.
FileAtRef read_at_ref(const std::string& ref, const std::string& path);

// The baseline `path` as committed in REF, checked like a working-tree baseline (not partial, has
// runs). Throws gate::Error (exit 2) when the repository, the ref or the file is missing. Adds a
// notice when the working tree's copy differs from REF's (the branch changes its baseline).
ResultFile load_baseline_at_ref(const std::string& ref, const std::string& path, const std::string& config_path,
                                std::vector<std::string>& notices);

// Adds a notice when the config in the working tree sets different thresholds, quantiles or
// policies for `functions` than the same config file at REF (or when REF has no such file).
// Never throws for a config REF cannot parse: that becomes a notice too.
void note_config_changes(const std::string& ref, const runner::Config& cfg, const std::vector<FunctionInfo>& functions,
                         std::vector<std::string>& notices);

}  // namespace gate::cli
