// Go benchmarks as the workload (config `benchmarks: go`): after each run, the `go test -bench`
// results its stdout holds go into the run's result, beside the function latencies.
#pragma once

#include <functional>
#include <string>

#include "plan/probe_plan.hpp"
#include "results/result.hpp"
#include "runner/config.hpp"

namespace gate::runner {

// Reads the benchmark results from the run's stdout file into `run` (nothing when the config does
// not ask for them). Every malformed result line is a warning, logged and kept in the run. Throws
// gate::Error (exit 3) when the output holds no result at all: the workload ran no benchmark.
// cpu_s: the execution's CPU seconds (RunSession::last_cpu_seconds; < 0 unknown): with
// benchmark_cpu, the one benchmark's cpu-ns/op (gate::kCpuNsPerOp, results/result.hpp) is cpu_s over its b.N.
void read_benchmarks(const Config& cfg, const std::string& stdout_path, const std::string& label, RunResult& run,
                     const std::function<void(const std::string&)>& log, double cpu_s = -1);

// Benchmarks without probes (issue 39): a probe hit costs microseconds on a VM, so a benchmark's
// ns/op read from a probed execution measures the probes. With benchmarks: go, the benchmark
// figures come only from clean executions (no probe attached, nothing tracked).
//
// The plan of a clean execution: `binary` (absolute) with its build id and Go version, no
// function and no probe site. Throws gate::Error when the binary does not exist.
plan::ProbePlan clean_plan(const std::string& binary);
// A unit's figures: the function figures of its probed executions (`unit`, merged) and the
// benchmark figures of its clean ones (`clean`, merged), recorded as such (clean_executions ...).
void take_clean_benchmarks(RunResult& unit, const RunResult& clean);
// A benchmarks-only unit: every execution was clean.
void mark_all_clean(RunResult& unit);
// For a unit's progress line: "" without clean executions, " (clean: no probes)" for a
// benchmarks-only unit, else "; benchmarks from N clean executions, S s".
std::string clean_note(const RunResult& unit);

}  // namespace gate::runner
