// gate.yaml's Go benchmarks: benchmarks: go (the workload's stdout holds `go test -bench` results),
// benchmark_cpu, and the benchmarks-only gate, a config without functions:.
#include "runner/config_parse.hpp"

namespace gate::runner::config_parse {

// `functions:` omitted with `benchmarks: go`: a benchmarks-only gate (no probe is attached; every
// execution is clean). Anywhere else the list must name at least one function.
bool benchmarks_only(const Ctx& c, const YAML::Node& root, const YAML::Node& fns) {
  const bool go_benchmarks = root["benchmarks"] && root["benchmarks"].IsScalar() && root["benchmarks"].Scalar() == "go";
  if (!fns && go_benchmarks) return true;
  if (fns && fns.IsSequence() && fns.size() > 0) return false;
  throw c.err(fns ? fns : root, "functions",
              fns ? "must list at least one function (an empty list measures nothing)"
                  : "is missing, and only a benchmarks-only config (benchmarks: go) may leave it out",
              "add e.g. functions: [\"example.com/shop.(*Cart).Checkout\"] (`gate functions BINARY` lists "
              "candidates), or, for a `go test -c` workload, set benchmarks: go and leave functions: out");
}

void parse_benchmarks(const Ctx& c, const YAML::Node& root, Config& cfg) {
  if (root["benchmarks"]) {
    cfg.benchmarks = str(c, root["benchmarks"], "benchmarks");
    if (cfg.benchmarks != "go" && cfg.benchmarks != "none")
      throw c.err(root["benchmarks"], "benchmarks", "is \"" + cfg.benchmarks + "\"",
                  "use go (read `go test -bench` results from the workload's stdout) or none");
    check_benchmarks(c, root, cfg);
  }
  if (root["benchmark_cpu"]) {
    cfg.benchmark_cpu = boolean(c, root["benchmark_cpu"], "benchmark_cpu");
    check_benchmark_cpu(c, root, cfg);
  }
}

}  // namespace gate::runner::config_parse
