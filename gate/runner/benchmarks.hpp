// Go benchmarks as the workload (config `benchmarks: go`): after each run, the `go test -bench`
// results its stdout holds go into the run's result, beside the function latencies.
#pragma once

#include <functional>
#include <string>

#include "results/result.hpp"
#include "runner/config.hpp"

namespace gate::runner {

// Reads the benchmark results from the run's stdout file into `run` (nothing when the config does
// not ask for them). Every malformed result line is a warning, logged and kept in the run. Throws
// gate::Error (exit 3) when the output holds no result at all: the workload ran no benchmark.
void read_benchmarks(const Config& cfg, const std::string& stdout_path, const std::string& label, RunResult& run,
                     const std::function<void(const std::string&)>& log);

}  // namespace gate::runner
