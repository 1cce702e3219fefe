// gate bisect: the commit that made a function slower, in about log2(n) steps. Each step builds a
// commit with the config's `build:` in a temporary git worktree and runs `gate ab` (the gate
// binary given, as a child) between GOOD's binary and that commit's: the verdict's statistics decide
// whether the commit is bad (a regression) or good. May include: runner (config), baselines (git),
// common. Needs no root itself (its gate ab children do).
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
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

// Placing a step that no verdict decided (with --function): BAD's regression of the function as
// gate ab measured it against GOOD (the test that flagged it, and its ratio), and the side of the
// point midway between them, sqrt(ratio), on which the step's own interval of that test lies.
// Pure: from gate ab's JSON report entries of the function (tests/history/bisect_place_test.cpp).
struct Reference {
  std::string test;  // "cpu/call", "p50", ...
  double ratio = 0;  // BAD/GOOD, > 1
  double midway() const;
};
enum class Side { kGood, kBad, kAcross };
// The reference from BAD-against-GOOD's entry of the function: its first test whose verdict is
// regression, when the function's verdict is; nullopt otherwise.
std::optional<Reference> reference_of(const nlohmann::json& function_entry);
// The step's side: below midway (its interval's high end) good, above (its low end) bad; across, or
// without that test or its uncorrected interval, kAcross.
Side place(const Reference& ref, const nlohmann::json& function_entry);

// `log`: progress to stderr (builds, verdicts); `out`: the lines a user reads on stdout (the plan,
// each step's outcome). Throws gate::Error: bad input (exit 2), a build or measurement that failed
// or decided nothing (exit 3).
Result run(const Options& o, const std::function<void(const std::string&)>& log,
           const std::function<void(const std::string&)>& out);

}  // namespace gate::bisect
