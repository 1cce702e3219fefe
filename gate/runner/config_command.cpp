// gate.yaml's command workload: the build command, the binary to probe, and workload:, the command
// run once per run (a service's keys are config_service.cpp's).
#include "runner/config_parse.hpp"

namespace gate::runner::config_parse {

// What runs: build, binary, and the workload command (parse_config reads a service, then checks
// that exactly one of the two is set).
void parse_workload(const Ctx& c, const YAML::Node& root, Config& cfg) {
  if (root["build"]) cfg.build = str(c, root["build"], "build");
  if (!root["binary"]) {
    throw c.err(root, "binary", "is missing", "name the Go binary to probe, e.g. binary: bin/shop");
  }
  cfg.binary = absolute(cfg.dir, str(c, root["binary"], "binary"));
  if (root["workload"]) cfg.workload = str(c, root["workload"], "workload");
}

}  // namespace gate::runner::config_parse
