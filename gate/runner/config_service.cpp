// gate.yaml's service workload: service: {command, ready_tcp, load, ...}, a service started once a
// unit and a load driver run against it, each key read into a ServiceSpec (the {port} and {url}
// rules across its keys are config_check.cpp's).
#include "runner/config_parse.hpp"

namespace gate::runner::config_parse {

ServiceSpec parse_service(const Ctx& c, const YAML::Node& s) {
  if (!s.IsMap()) throw c.err(s, "service", "must be a map", "keys: command, ready_tcp, load");
  check_keys(c, s, "service", {"command", "ready_tcp", "ready_timeout", "load", "stop_signal", "stop_timeout",
                               "rounds", "warmup_rounds", "alternate"});
  ServiceSpec sv;
  if (!s["command"]) throw c.err(s, "service.command", "is missing", "the command that starts the service");
  if (!s["load"]) throw c.err(s, "service.load", "is missing", "the command that drives load against it");
  sv.command = str(c, s["command"], "service.command");
  sv.load = str(c, s["load"], "service.load");
  if (s["ready_tcp"]) sv.ready_tcp = str(c, s["ready_tcp"], "service.ready_tcp");
  if (s["ready_timeout"]) sv.ready_timeout_s = duration_s(c, s["ready_timeout"], "service.ready_timeout");
  if (s["stop_timeout"]) sv.stop_timeout_s = duration_s(c, s["stop_timeout"], "service.stop_timeout");
  if (s["stop_signal"]) {
    sv.stop_signal = str(c, s["stop_signal"], "service.stop_signal");
    if (sv.stop_signal != "SIGTERM" && sv.stop_signal != "SIGINT" && sv.stop_signal != "SIGKILL")
      throw c.err(s["stop_signal"], "service.stop_signal", "must be SIGTERM, SIGINT or SIGKILL", "");
  }
  if (s["rounds"]) sv.rounds = static_cast<int>(number(c, s["rounds"], "service.rounds", 1, 1000));
  if (s["warmup_rounds"])
    sv.warmup_rounds = static_cast<int>(number(c, s["warmup_rounds"], "service.warmup_rounds", 0, 100));
  if (s["alternate"]) {
    sv.alternate = str(c, s["alternate"], "service.alternate");
    if (sv.alternate != "auto" && sv.alternate != "rounds" && sv.alternate != "units")
      throw c.err(s["alternate"], "service.alternate", "must be auto, rounds or units",
                  "rounds: both sides' services up at once, alternating round by round (needs {port}); units: "
                  "one side's unit, then the other's");
  }
  check_service(c, s, sv);
  return sv;
}

}  // namespace gate::runner::config_parse
