// gate bisect: the commit that made a function slower, in about log2(n) steps. Each step builds a
// commit with the config's `build:` in a temporary git worktree and runs `gate ab` (the gate
// binary given, as a child) between GOOD's binary and that commit's: the verdict's statistics decide
// whether the commit is bad (a regression) or good. May include: runner (config), baselines (git),
// common. Needs no root itself (its gate ab children do).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace gate::bisect {

struct Options {
  std::string config;         // the gate.yaml whose build: builds each commit
  std::string good, bad;      // commits (anything git rev-parse reads); GOOD an ancestor of BAD
  std::string function;       // decide on this function's verdict alone ("" : every function)
  std::string work;           // worktrees and binaries ("" : a temporary directory)
  int runs = 0, max_runs = 0; // passed to gate ab (0: the config's)
  bool keep = false;          // keep `work` afterwards
  bool verbose = false;       // log every function's verdict, not only the undecided and slower ones
  std::string gate = "/proc/self/exe";  // the gate binary each step runs as gate ab
};

struct Result {
  std::string first_bad, subject;  // the first bad commit and its subject line
  int steps = 0;
  size_t commits = 0;  // commits after GOOD up to BAD
};

// `log`: progress to stderr (builds, verdicts); `out`: the lines a user reads on stdout (the plan,
// each step's outcome). Throws gate::Error: bad input (exit 2), a build or measurement that failed
// or decided nothing (exit 3).
Result run(const Options& o, const std::function<void(const std::string&)>& log,
           const std::function<void(const std::string&)>& out);

}  // namespace gate::bisect
