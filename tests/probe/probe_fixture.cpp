// Implementation of the probe-test set-up: toolchain choice, building, measuring, parsing the
// program's own truth lines.
#include "probe/probe_fixture.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.hpp"

namespace gate::testing {

namespace fs = std::filesystem;

GoToolchain probe_toolchain() {
  const char* want = std::getenv("GATE_TEST_GO_VERSION");
  if (want && *want) {
    for (const auto& t : go_toolchains())
      if (t.version == want) return t;
    throw Error::make("GATE_TEST_GO_VERSION=" + std::string(want), "no such Go toolchain is installed",
                      "run ci/setup.sh (installs Go 1.19, 1.21-1.23, and 1.24-1.27 into /opt/gate-go)");
  }
  return default_go();
}

const std::string& probetarget_binary() {
  static const std::string path = [] {
    GoBuild b;
    b.src_dir = std::string(GATE_SOURCE_DIR) + "/tests/go/probetarget";
    b.toolchain = probe_toolchain();
    return build_go(b);
  }();
  return path;
}

const std::string& truetime_binary() {
  static const std::string path = [] {
    GoBuild b;
    b.src_dir = std::string(GATE_SOURCE_DIR) + "/tests/go/truetime";
    b.toolchain = probe_toolchain();
    return build_go(b);
  }();
  return path;
}

const FunctionRun& Measured::fn(const std::string& name, size_t run) const {
  if (run >= result.runs.size()) throw std::runtime_error("no run " + std::to_string(run));
  const auto* f = result.runs[run].find(name);
  if (!f) throw std::runtime_error("function not in result: " + name);
  return *f;
}

const FunctionInfo& Measured::info(const std::string& name) const {
  const auto* f = result.find_function(name);
  if (!f) throw std::runtime_error("function not in result: " + name);
  return *f;
}

Measured measure_workload(const MeasureArgs& a) {
  const std::string binary = a.binary.empty() ? probetarget_binary() : a.binary;
  const fs::path dir = fs::temp_directory_path() / ("gate-probe-test-" + std::to_string(getpid()) + "-" +
                                                    std::to_string(std::rand()));
  fs::create_directories(dir);
  runner::Config cfg;
  cfg.path = (dir / "gate.yaml").string();
  cfg.dir = dir.string();
  cfg.name = "probe-test";
  cfg.binary = binary;
  cfg.workload = binary + " " + a.args;
  cfg.runs = a.runs;
  cfg.timeout_s = 120;
  cfg.env = a.env;
  for (const auto& f : a.functions) cfg.functions.push_back({f, {}, {}});
  runner::MeasureOptions mo;
  mo.skip_build = true;
  mo.entry = a.entry;
  mo.calibration = a.calibration;
  mo.session.engine.true_time = a.true_time;
  mo.exclude_preemption = a.exclude_preemption;  // explicit: not the config's nor gate's default
  mo.session.engine.mode = a.mode;
  mo.session.keep_output_dir = (dir / "out").string();
  runner::Measurement m = runner::measure(cfg, mo, nullptr);
  if (m.failure) throw *m.failure;

  Measured out;
  out.result = std::move(m.result);
  const auto last = dir / "out" / ("run-" + std::to_string(a.runs) + ".stdout");
  std::ifstream in(last);
  std::stringstream ss;
  ss << in.rdbuf();
  out.stdout_text = ss.str();
  std::istringstream lines(out.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("GATE_", 0) != 0) continue;
    const auto sp = line.find(' ');
    const std::string key = line.substr(0, sp), value = sp == std::string::npos ? "" : line.substr(sp + 1);
    out.lines[key] = value;
    if (key == "GATE_CALLS") {
      const auto calls = nlohmann::json::parse(value);  // named: items() must not outlive it
      for (const auto& [k, v] : calls.items()) out.truth[k] = v.get<uint64_t>();
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return out;
}

}  // namespace gate::testing
