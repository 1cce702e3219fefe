// The result format's pieces its reader and its writer share (gate/results/result_*.cpp only): the
// schema's name, the run columns of schema 2, and the JSON of what every version writes alike.
#pragma once

#include <iterator>
#include <nlohmann/json.hpp>

#include "results/result.hpp"

namespace gate::result_json {

using nlohmann::json;

inline constexpr const char* kSchemaName = "gate.result";

// Schema 2 stores a run's functions as columns over the file's table of function names
// ("run_functions"): a function that no call reached takes no space, and a 10,000-function
// result parses without building an object per function and run (issue 14: the object form of
// schema 1 made a 20-run file 94 MiB and `gate compare` on it took 19 s).
// Per run: "id" (indexes into the table of the functions with any non-zero figure), one column per
// counter (omitted when all zero), "buckets" (how many non-empty histogram buckets each id has),
// "histogram" (those buckets of all ids, concatenated: bucket, count, bucket, count, ...), and
// "absent" (table indexes the run does not hold at all; usually omitted).
// A run measured with true time (issue 9) says "true_time": true and adds, per id, the true-time
// counters (kTrueColumns, omitted when all zero), "self_buckets" + "self_histogram" (the self-time
// histogram, laid out like the time histogram; "self_is_time" lists the positions whose self-time
// histogram equals the time histogram, as a call without traced children's does, and which store
// 0 buckets of their own), "callers" (how many caller edges each id has) and "caller_edges" (those
// edges of all ids, concatenated: caller's table index, calls, sum_ns).
struct Column {
  const char* key;
  uint64_t FunctionRun::*field;
};
inline constexpr Column kColumns[] = {{"calls", &FunctionRun::calls},
                               {"sum_start_us", &FunctionRun::sum_start_us},
                               {"sum_start_ms2", &FunctionRun::sum_start_ms2},
                               {"sum_ns", &FunctionRun::sum_ns},
                               {"min_ns", &FunctionRun::min_ns},
                               {"max_ns", &FunctionRun::max_ns},
                               {"unmatched_entries", &FunctionRun::unmatched_entries},
                               {"unmatched_returns", &FunctionRun::unmatched_returns},
                               {"diverted_entries", &FunctionRun::diverted_entries},
                               {"dropped", &FunctionRun::dropped},
                               {"cpu_samples", &FunctionRun::cpu_samples},
                               {"probe_samples", &FunctionRun::probe_samples},
                               {"self_samples", &FunctionRun::self_samples},
                               {"trial_self_samples", &FunctionRun::trial_self_samples},
                               {"lost_samples", &FunctionRun::lost_samples},
                               {"fixed_calls_per_execution", &FunctionRun::fixed_calls_per_execution}};

struct TrueColumn {
  const char* key;
  uint64_t TrueTimeRun::*field;
};
inline constexpr TrueColumn kTrueColumns[] = {{"raw_sum_ns", &TrueTimeRun::raw_sum_ns},
                                       {"raw_min_ns", &TrueTimeRun::raw_min_ns},
                                       {"raw_max_ns", &TrueTimeRun::raw_max_ns},
                                       {"descendants", &TrueTimeRun::descendants},
                                       {"self_sum_ns", &TrueTimeRun::self_sum_ns},
                                       {"clamped", &TrueTimeRun::clamped},
                                       {"uncompensated", &TrueTimeRun::uncompensated}};

// The declared functions, the run context and its probe calibration (result.cpp).
json function_info_json(const FunctionInfo& f);
json context_json(const RunContext& c);
RunContext context_from(const json& j);
json calibration_json(const ProbeCalibration& c);
ProbeCalibration calibration_from(const json& j);
// A run's Go benchmark results (result.cpp). Written only when the run has benchmark output.
json benchmarks_json(const RunResult& r);
void benchmarks_from(const json& j, RunResult& r);
// Every timed call is in the histogram (result.cpp).
bool histogram_agrees(const FunctionRun& f);

// Schema 1's run (result_v1_read.cpp).
RunResult run_from_v1(const json& j);

}  // namespace gate::result_json
