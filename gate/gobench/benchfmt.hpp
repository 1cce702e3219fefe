// Reads the Go benchmark format (`go test -bench` output, as golang.org/x/perf/benchfmt defines it)
// from a workload's stdout: result lines, configuration lines (goos:, pkg:, cpu:, ...) and Unit lines.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "results/result.hpp"

namespace gate::gobench {

struct Parsed {
  std::vector<BenchmarkRun> benchmarks;       // in output order; a name may repeat (-test.count)
  std::map<std::string, std::string> config;  // every configuration key seen, its last value
  std::vector<std::string> higher_is_better;  // units declared `Unit U better=higher`
  // One per line that starts like a result (`Benchmark` + name) but is not one, naming the origin,
  // the line number, the line and what is wrong. Such lines are skipped, as benchstat skips them.
  std::vector<std::string> warnings;
};

// Every line is either a result, a configuration line, a Unit line, or ignored (test logs, PASS,
// `ok pkg 1.2s`), as in benchfmt. `origin` names the text in warnings ("run 3 stdout").
Parsed parse(std::string_view text, const std::string& origin);

// "BenchmarkX/y-8" -> "BenchmarkX/y" (the GOMAXPROCS suffix removed; a name without one unchanged).
std::string_view base_name(std::string_view full_name);

// Lower values are better for every unit except those ending in "/s" (throughput: MB/s) and those
// the output declared better=higher; an unknown unit counts as lower-is-better, like benchstat's.
bool higher_is_better(std::string_view unit, const std::vector<std::string>& declared_higher);

}  // namespace gate::gobench
