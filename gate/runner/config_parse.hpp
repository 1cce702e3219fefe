// How parse_config (runner/config.cpp) reads gate.yaml, split by workload form (runner/ only: the
// rest of gate sees config.hpp). Each parse_* reads its keys into the Config with the readers of
// yaml_fields.hpp; each check_* (config_check.cpp) relates keys already read, and is called right
// after the last of them, so that a file with several mistakes is refused for the same one first.
#pragma once

#include <yaml-cpp/yaml.h>

#include "runner/config.hpp"
#include "runner/yaml_fields.hpp"

namespace gate::runner::config_parse {

// The readers by their short names: str(c, n, key), number(...), as each parse file writes them.
using namespace yaml;

// config_command.cpp: what runs: build, binary, and a command workload (workload:).
void parse_workload(const Ctx& c, const YAML::Node& root, Config& cfg);

// config_service.cpp: a service workload (service: {command, load, ...}).
ServiceSpec parse_service(const Ctx& c, const YAML::Node& s);

// config_benchmarks.cpp: whether the config is benchmarks-only (functions: left out), else
// functions: lists some.
bool benchmarks_only(const Ctx& c, const YAML::Node& root, const YAML::Node& fns);
// config_benchmarks.cpp: benchmarks: go and benchmark_cpu.
void parse_benchmarks(const Ctx& c, const YAML::Node& root, Config& cfg);

// config_functions.cpp: one entry of functions: (a Go name or glob, or a native function).
FunctionSpec parse_function(const Ctx& c, const YAML::Node& f);

// config_verdict.cpp: the verdict settings: quantiles, thresholds, policies.
void parse_verdict(const Ctx& c, const YAML::Node& root, Config& cfg);

// config_check.cpp: the rules across keys.
// Exactly one of workload: and service:.
void check_form(const Ctx& c, const YAML::Node& root, const Config& cfg);
// max_runs is not below runs.
void check_max_runs(const Ctx& c, const YAML::Node& root, const Config& cfg);
// suspect_max_runs is not below max_runs (or runs).
void check_suspect_max_runs(const Ctx& c, const YAML::Node& root, const Config& cfg);
// A service's {port} and {url} in its command, ready_tcp and load, and alternate: rounds.
void check_service(const Ctx& c, const YAML::Node& s, const ServiceSpec& sv);
// A function entry's native:, measure:, calls: and bucket_by:.
void check_function(const Ctx& c, const YAML::Node& f, const FunctionSpec& spec);
// benchmarks: go with a service.
void check_benchmarks(const Ctx& c, const YAML::Node& root, const Config& cfg);
// benchmark_cpu: true without benchmarks: go.
void check_benchmark_cpu(const Ctx& c, const YAML::Node& root, const Config& cfg);

}  // namespace gate::runner::config_parse
