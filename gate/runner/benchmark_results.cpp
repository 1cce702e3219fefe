// read_benchmarks: the run's stdout through the benchfmt reader into RunResult::benchmarks.
#include "runner/benchmark_results.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "common/error.hpp"
#include "common/files.hpp"
#include "elf/elf_file.hpp"
#include "gobench/benchfmt.hpp"

namespace gate::runner {

void read_benchmarks(const Config& cfg, const std::string& stdout_path, const std::string& label, RunResult& run,
                     const std::function<void(const std::string&)>& log, double cpu_s) {
  if (cfg.benchmarks != "go") return;
  const auto text = read_file(stdout_path);
  auto parsed = gobench::parse(text ? *text : std::string(), label + " stdout");
  for (const auto& w : parsed.warnings)
    if (log) log("warning: " + w);
  if (parsed.benchmarks.empty()) {
    throw Error::make("workload '" + cfg.workload + "' (" + label + ")",
                      "printed no Go benchmark result to stdout, and the config says benchmarks: go" +
                          std::string(parsed.warnings.empty() ? "" : " (" + std::to_string(parsed.warnings.size()) +
                                                                         " malformed result lines: " +
                                                                         parsed.warnings.front() + ")"),
                      "run a `go test -c` binary with -test.run '^$' -test.bench REGEX (a REGEX that matches "
                      "benchmarks), keep its stdout for the results, or remove benchmarks: go",
                      ExitCode::kMeasure);
  }
  if (cfg.benchmark_cpu) {
    // The execution's CPU time holds start-up and Go's b.N=1 call besides the timed loop: a few
    // milliseconds alike on both sides, which dilute a change slightly (docs/how-it-measures.md).
    if (parsed.benchmarks.size() != 1)
      throw Error::make("workload '" + cfg.workload + "' (" + label + ")",
                        "printed " + std::to_string(parsed.benchmarks.size()) +
                            " benchmark results, and benchmark_cpu: true needs one an execution (its CPU "
                            "time cannot be split between benchmarks)",
                        "give -test.bench a regex that matches one benchmark and -test.count 1, or remove "
                        "benchmark_cpu",
                        ExitCode::kUsage);
    auto& b = parsed.benchmarks.front();
    if (cpu_s >= 0 && b.iterations > 0) b.metrics.emplace_back(kCpuNsPerOp, cpu_s * 1e9 / static_cast<double>(b.iterations));
  }
  // The direction of every unit seen, so that the result says how it was compared.
  std::vector<std::string> higher;
  for (const auto& b : parsed.benchmarks)
    for (const auto& [unit, v] : b.metrics)
      if (gobench::higher_is_better(unit, parsed.higher_is_better) &&
          std::find(higher.begin(), higher.end(), unit) == higher.end())
        higher.push_back(unit);
  run.benchmarks = std::move(parsed.benchmarks);
  run.benchmark_config = std::move(parsed.config);
  run.benchmark_higher_better = std::move(higher);
  run.benchmark_warnings = std::move(parsed.warnings);
}

plan::ProbePlan clean_plan(const std::string& binary) {
  namespace fs = std::filesystem;
  plan::ProbePlan t;
  t.binary = fs::absolute(binary).lexically_normal().string();
  if (!fs::exists(t.binary))
    throw Error::make(t.binary, "does not exist",
                      "build it first (set build: in gate.yaml) or fix binary: in gate.yaml", ExitCode::kUsage);
  try {  // identity only: a benchmarks-only gate attaches nothing, so any executable will do
    const auto elf = elf::ElfFile::open(t.binary);
    t.go_version = elf.go_version();
    t.build_id = elf.go_build_id().empty() ? elf.gnu_build_id() : elf.go_build_id();
  } catch (const Error&) {
  }
  t.symbol_source = "none";
  return t;
}

void take_clean_benchmarks(RunResult& unit, const RunResult& clean) {
  unit.benchmarks = clean.benchmarks;
  unit.benchmark_config = clean.benchmark_config;
  unit.benchmark_higher_better = clean.benchmark_higher_better;
  unit.benchmark_warnings = clean.benchmark_warnings;
  unit.probed_executions = unit.executions;
  unit.clean_executions = clean.executions;
  unit.clean_duration_s = clean.duration_s;
}

void mark_all_clean(RunResult& unit) {
  unit.probed_executions = 0;
  unit.clean_executions = unit.executions;
  unit.clean_duration_s = unit.duration_s;
}

std::string clean_note(const RunResult& unit) {
  if (unit.clean_executions == 0) return "";
  if (unit.probed_executions == 0) return " (clean: no probes)";
  char b[120];
  snprintf(b, sizeof b, "; benchmarks from %d clean execution%s, %.2f s", unit.clean_executions,
           unit.clean_executions == 1 ? "" : "s", unit.clean_duration_s);
  return b;
}

}  // namespace gate::runner
