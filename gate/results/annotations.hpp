// Facts beside the verdicts that come from outside stats/: whether a function's machine code
// changed (analysis/code_diff), where its CPU time went (profile/profile_diff), how many executions
// of the workload made one measured unit, and how much of a function's variance comes from code
// layout (randomized layout variants). Every report format shows them; none ever changes a verdict.
// Plain data in results/, so that report/ and explain/ read them and verdict/ fills them without
// depending on each other: the measuring layer (verdict/) fills them, the CLI passes them through
// ReportContext, the renderers read them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gate {

// Machine code, base against head, normalised (addresses ignored).
struct CodeNote {
  bool same = false;          // the function's own normalised instructions are identical
  int64_t moved_bytes = 0;    // head entry address - base entry address
  // Callees (direct calls, transitively within the binary's Go code, to a bounded depth) whose
  // code changed; empty with callees_compared: the function's whole call tree is the same code.
  bool callees_compared = false;
  std::vector<std::string> changed_callees;
  // Its code and its callees' code are the same: a change may come from layout or data.
  bool layout_or_data() const { return same && callees_compared && changed_callees.empty(); }
};

// One frame of a function's CPU profile subtree, base against head, per call of the function.
struct ProfileFrameNote {
  std::string frame;             // leaf function ("[gate probe]" included)
  std::vector<std::string> path; // from the function (exclusive) down to the frame's caller
  uint64_t base_samples = 0, head_samples = 0;
  double base_ns_per_call = 0, head_ns_per_call = 0;
  double p_value = 1;
  bool significant = false;
};

// One distinct call path under the function (the function first, the leaf last), per call of the
// function on each side: what the HTML differential flame graph draws.
struct ProfileStackNote {
  std::vector<std::string> frames;
  double base_ns_per_call = 0, head_ns_per_call = 0;
};

struct ProfileNote {
  uint64_t base_samples = 0, head_samples = 0;  // samples with the function on the stack
  double base_ns_per_call = 0, head_ns_per_call = 0;
  std::vector<ProfileFrameNote> frames;         // largest |change per call| first
  std::vector<ProfileStackNote> stacks;         // largest first, at most a few hundred
  double head_probe_share = 0;                  // share of the head's subtree samples in [gate probe]
  std::string pprof_command;                    // go tool pprof -diff_base ... -show_from=...
};

struct FunctionNotes {
  std::optional<CodeNote> code;
  std::optional<ProfileNote> profile;
  // Share (0..1) of the function's between-unit variance of log time that comes from the layout
  // variant the unit ran (absent: one layout per side, or too few units per layout to say).
  std::optional<double> layout_share;
};

struct Annotations {
  std::map<std::string, FunctionNotes> functions;  // by function name
  std::vector<std::string> profile_files;          // pprof files written (profile-base.pb.gz, ...)
  // Executions of the workload per measured unit, per side (0: not known; 1: a unit is one run).
  int base_executions_per_unit = 0, head_executions_per_unit = 0;
  // Layout variants measured per side (0: not known; 1: a single build per side).
  int base_layouts = 0, head_layouts = 0;
  // What the measuring layer noticed, in its words (runner/: functions never called, a service's
  // rounds, slices; verdict/: a noisy shard): every format lists them among the comparison's
  // warnings (explain::warnings), not in the annotation sections, so empty() leaves them out.
  std::vector<std::string> warnings;
  bool empty() const {
    return functions.empty() && profile_files.empty() && base_executions_per_unit == 0 &&
           head_executions_per_unit == 0 && base_layouts == 0 && head_layouts == 0;
  }
};

}  // namespace gate
