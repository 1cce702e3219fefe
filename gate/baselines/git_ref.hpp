// Trusted baselines: `--baseline-ref REF` reads a file (the baseline, or the config to compare
// thresholds with) from a git commit instead of the working tree, so a branch cannot loosen its
// own gate by editing it. Runs git with common/subprocess; may include results/ and common/.
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"

namespace gate::baselines {

struct GitOutput {
  int status = -1;  // git's exit status
  std::string out;  // its stdout
  std::string err;  // its stderr
};
// Runs `git -C dir ARGS...` (no shell, messages in English, never prompting). Throws gate::Error
// (exit 2) when git cannot be started at all (not installed).
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

// The baseline `path` as committed in REF, checked like a working-tree baseline. Throws
// gate::Error (exit 2) when the repository, the ref or the file is missing. Adds a notice when the
// working tree's copy differs from REF's (the branch changes its baseline).
ResultFile load_at_ref(const std::string& ref, const std::string& path, const std::string& config_path,
                       std::vector<std::string>& notices);

}  // namespace gate::baselines
