// What a measurement notes about itself, as values: declared functions no run called, service
// rounds whose calls are off their unit's other rounds, functions whose calls are long for a time
// slice. runner/ finds them in a result (coverage.*, rounds.*, sliced.*); explain/run_notes_text.* words
// them when a report or a log shows them. Here because both read them and explain/ may not include runner/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gate {

// A measurable function with no call in any run of a side.
struct UncalledFunction {
  std::string name;
  std::string side;                     // "" (gate run, gate record), "base" or "head"
  size_t runs = 0;                      // the side's runs
  bool native = false;                  // a C/C++ function: its inlined copies are not looked for
  std::vector<std::string> inlined_at;  // FunctionInfo::inlined_at: where its calls are not timed
};

// A round of a service's unit whose calls of the declared functions are off the median of the
// unit's other rounds by more than the config's calls_change.
struct RoundCalls {
  std::string side;          // "" when not known (the Measurer's own log), "base" or "head"
  std::string round;         // the round as errors name it: "unit 2, round 3 of 5 (base)"
  uint64_t calls = 0;        // the round's calls
  double median = 0;         // the median of the unit's other rounds' calls
  double change = 0;         // calls / median - 1
  double calls_change = 0;   // the config's bound (0.5 = 50%)
  std::string recorded;      // a result file written before these values: its line as it was written
};

// A function whose p50 call over all of a side's slices is above a quarter of the slice.
struct LongSliceCalls {
  std::string name;
  double p50_ns = 0;
};

// The notes of a sliced measurement's side (gate ab --slice-ms).
struct SliceNotes {
  std::string side;
  double slice_ms = 0;
  std::vector<LongSliceCalls> long_calls;
  uint64_t straddled_calls = 0;  // calls dropped for straddling a switch between slices
};

// A side's runs during which the cgroup's CPU quota ran out (RunResult::throttled_periods): the
// whole group was held until the next enforcement period, which stretches wall time by whatever
// the quota allows. runner::throttled_runs finds them.
struct ThrottledRuns {
  std::string side;
  size_t runs = 0, throttled_runs = 0;
  uint64_t periods = 0, throttled_periods = 0;  // summed over the throttled runs
  double throttled_s = 0;                       // held, summed over them (and over CPUs)
  double max_share = 0;                         // the most throttled run: its throttled / periods
};

// The workload (and its build, service and load) ran as root: the code under test had gate's
// privileges. runner::root_workload finds it in a result (extra "run_as", "run_as_uid").
struct RootWorkload {
  std::string side;
  std::string who;  // "root (uid 0), gate's own user"
};

}  // namespace gate
