// gate.yaml's rules across keys: a value that is fine alone but not with another key's (workload:
// and service: both set, max_runs below runs, {port} in a service's command but not in its
// ready_tcp, bucket_by on a native function, benchmark_cpu without benchmarks: go). Each is called
// by the parse of the last key it relates, where the check always stood: a file with several
// mistakes is refused for the same one, at the same line, as before the checks left the parsers.
#include "runner/config_parse.hpp"

#include <algorithm>

#include "common/name_pattern.hpp"

namespace gate::runner::config_parse {

void check_form(const Ctx& c, const YAML::Node& root, const Config& cfg) {
  if (cfg.workload.empty() == !cfg.service.has_value()) {
    throw c.err(root, cfg.workload.empty() ? "workload" : "service",
                cfg.workload.empty() ? "is missing: say how to drive the binary"
                                     : "and 'workload' are both set: use one",
                "either workload: <command run per run> or service: {command, load}");
  }
}

void check_max_runs(const Ctx& c, const YAML::Node& root, const Config& cfg) {
  if (cfg.max_runs && cfg.max_runs < cfg.runs)
    throw c.err(root["max_runs"], "max_runs", "is below runs (" + std::to_string(cfg.runs) + ")", "raise max_runs or lower runs");
}

void check_suspect_max_runs(const Ctx& c, const YAML::Node& root, const Config& cfg) {
  const int floor = std::max(cfg.runs, cfg.max_runs);
  if (cfg.suspect_max_runs && cfg.suspect_max_runs < floor)
    throw c.err(root["suspect_max_runs"], "suspect_max_runs",
                "is below " + std::string(cfg.max_runs ? "max_runs" : "runs") + " (" + std::to_string(floor) + ")",
                "raise it to at least " + std::to_string(floor) + " (equal: never measure past max_runs)");
}

void check_service(const Ctx& c, const YAML::Node& s, const ServiceSpec& sv) {
  if (sv.alternate == "rounds" && sv.ready_tcp.find(kPortPlaceholder) == std::string::npos)
    throw c.err(s["alternate"], "service.alternate",
                "is rounds, which runs both sides' services at once, but ready_tcp has no {port}: they cannot "
                "both listen on one fixed address",
                "write {port} in service.command, ready_tcp and load, or say alternate: units");
  if ((sv.load + sv.command).find(kUrlPlaceholder) != std::string::npos && sv.ready_tcp.empty())
    throw c.err(s, "service.ready_tcp", "is missing, and {url} in service.load or command is made from it",
                "set ready_tcp: 127.0.0.1:{port} (and {port} in service.command)");
  // A {port} only in the command or the load would start the service on a port nobody waits for.
  const bool port_in_cmd = sv.command.find(kPortPlaceholder) != std::string::npos ||
                           sv.load.find(kPortPlaceholder) != std::string::npos;
  if (port_in_cmd && sv.ready_tcp.find(kPortPlaceholder) == std::string::npos) {
    throw c.err(s["ready_tcp"] ? s["ready_tcp"] : s, "service.ready_tcp",
                "must use {port} too: service.command or service.load uses it",
                "e.g. ready_tcp: 127.0.0.1:{port}");
  }
}

void check_function(const Ctx& c, const YAML::Node& f, const FunctionSpec& spec) {
  if (spec.native && (!spec.measure.empty() || !spec.calls.empty()))
    throw c.err(f, spec.pattern, "sets measure or calls on a native function",
                "leave them out: native functions are measured by their probes");
  if (f["bucket_by"] && spec.native)
    throw c.err(f["bucket_by"], spec.pattern + ".bucket_by", "is for Go functions", "remove it from the native entry");
  if (spec.bucket_by && NamePattern::parse(spec.pattern).is_glob())
    throw c.err(f["bucket_by"], spec.pattern + ".bucket_by",
                "is on a glob, whose functions have different arguments",
                "put bucket_by on an entry with one exact function name");
}

void check_benchmarks(const Ctx& c, const YAML::Node& root, const Config& cfg) {
  if (cfg.benchmarks == "go" && cfg.service)
    throw c.err(root["benchmarks"], "benchmarks", "is set with service:, whose load's output is not read",
                "run the benchmarks as workload: (a `go test -c` binary with -test.bench)");
}

void check_benchmark_cpu(const Ctx& c, const YAML::Node& root, const Config& cfg) {
  if (cfg.benchmark_cpu && cfg.benchmarks != "go")
    throw c.err(root["benchmark_cpu"], "benchmark_cpu", "is true, and the config does not read benchmarks",
                "set benchmarks: go (a `go test -c` workload with -test.bench), or remove benchmark_cpu");
}

}  // namespace gate::runner::config_parse
