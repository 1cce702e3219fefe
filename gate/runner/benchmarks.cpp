// read_benchmarks: the run's stdout through the benchfmt reader into RunResult::benchmarks.
#include "runner/benchmarks.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/files.hpp"
#include "gobench/benchfmt.hpp"

namespace gate::runner {

void read_benchmarks(const Config& cfg, const std::string& stdout_path, const std::string& label, RunResult& run,
                     const std::function<void(const std::string&)>& log) {
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

}  // namespace gate::runner
