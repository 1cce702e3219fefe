// The result format's parts every schema version writes alike: the declared functions, the run
// context and its probe calibration (also its own cache file), a run's Go benchmarks. The runs:
// result_v1_read.cpp, result_v2_write.cpp, result_v2_read.cpp.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "results/result.hpp"
#include "results/result_json.hpp"

namespace gate {

namespace result_json {

namespace {

json cost_json(const CostFigure& c) {
  return json{{"median_ns", c.median_ns}, {"low_ns", c.low_ns}, {"high_ns", c.high_ns}};
}
CostFigure cost_from(const json& j) {
  return CostFigure{j.value("median_ns", 0.0), j.value("low_ns", 0.0), j.value("high_ns", 0.0)};
}

}  // namespace

json function_info_json(const FunctionInfo& f) {
  return json{{"id", f.id},
              {"name", f.name},
              {"address", f.address},
              {"size", f.size},
              {"measurable", f.measurable},
              {"not_measurable_reason", f.not_measurable_reason},
              {"entry", {{"placement", f.entry_placement},
                         {"instruction", f.entry_instruction},
                         {"cost_class", f.entry_cost_class},
                         {"address", f.entry_address}}},
              {"return_addresses", f.return_addresses},
              {"inlined_at", f.inlined_at}};
}

json calibration_json(const ProbeCalibration& c) {
  return json{{"entry_jump_full", cost_json(c.entry_jcc_full)},
              {"entry_first_instruction_full", cost_json(c.entry_first_full)},
              {"return_full", cost_json(c.return_full)},
              {"bias_jump_entry", cost_json(c.bias_jcc)},
              {"bias_first_instruction_entry", cost_json(c.bias_first)},
              {"rounds", c.rounds},
              {"measured_at", c.measured_at},
              {"kernel", c.kernel},
              {"gate_version", c.gate_version},
              {"cache_file", c.cache_file},
              {"from_cache", c.from_cache}};
}

ProbeCalibration calibration_from(const json& j) {
  ProbeCalibration c;
  c.present = true;
  c.entry_jcc_full = cost_from(j.value("entry_jump_full", json::object()));
  c.entry_first_full = cost_from(j.value("entry_first_instruction_full", json::object()));
  c.return_full = cost_from(j.value("return_full", json::object()));
  c.bias_jcc = cost_from(j.value("bias_jump_entry", json::object()));
  c.bias_first = cost_from(j.value("bias_first_instruction_entry", json::object()));
  c.rounds = j.value("rounds", 0);
  c.measured_at = j.value("measured_at", "");
  c.kernel = j.value("kernel", "");
  c.gate_version = j.value("gate_version", "");
  c.cache_file = j.value("cache_file", "");
  c.from_cache = j.value("from_cache", false);
  return c;
}

// Every timed call is in the histogram. A function whose calls were counted and not timed (`calls:
// entry`, or its probes removed after gate ab's first pair: fixed_calls_per_execution) has calls
// and an empty histogram.
bool histogram_agrees(const FunctionRun& f) { return f.histogram.count() == f.calls || f.histogram.count() == 0; }

// Written only when the run has benchmark output, so results without it keep their exact form.
json benchmarks_json(const RunResult& r) {
  json results = json::array();
  for (const auto& b : r.benchmarks) {
    json metrics = json::array();
    for (const auto& [unit, value] : b.metrics) {
      json m = {{"unit", unit}, {"value", value}};
      if (const auto* e = b.executions_of(unit)) m["executions"] = *e;  // optional: a unit of several executions
      metrics.push_back(std::move(m));
    }
    results.push_back({{"name", b.name}, {"pkg", b.pkg}, {"iterations", b.iterations}, {"metrics", metrics}});
  }
  return json{{"format", "go test -bench (golang.org/x/perf/benchfmt)"},
              {"config", r.benchmark_config},
              {"higher_is_better", r.benchmark_higher_better},
              {"results", results},
              {"warnings", r.benchmark_warnings}};
}

void benchmarks_from(const json& j, RunResult& r) {
  r.benchmark_config = j.value("config", std::map<std::string, std::string>{});
  r.benchmark_higher_better = j.value("higher_is_better", std::vector<std::string>{});
  r.benchmark_warnings = j.value("warnings", std::vector<std::string>{});
  for (const auto& b : j.at("results")) {
    BenchmarkRun br;
    br.name = b.at("name").get<std::string>();
    br.pkg = b.value("pkg", "");
    br.iterations = b.value("iterations", uint64_t{0});
    for (const auto& m : b.at("metrics")) {
      br.metrics.emplace_back(m.at("unit").get<std::string>(), m.at("value").get<double>());
      if (m.contains("executions"))
        br.executions.emplace_back(br.metrics.back().first, m.at("executions").get<std::vector<double>>());
    }
    r.benchmarks.push_back(std::move(br));
  }
}

json context_json(const RunContext& c) {
  return json{{"binary_path", c.binary_path}, {"build_id", c.build_id},
              {"go_version", c.go_version},   {"kernel", c.kernel},
              {"cpu_model", c.cpu_model},     {"cpu_count", c.cpu_count},
              {"hostname", c.hostname},       {"gate_version", c.gate_version},
              {"config_path", c.config_path}, {"config_hash", c.config_hash},
              {"attach_mode", c.attach_mode}, {"started_at", c.started_at},
              {"ended_at", c.ended_at},       {"probe_cost_ns", c.probe_cost_ns},
              {"probe_calibration", c.calibration.present ? calibration_json(c.calibration) : json(nullptr)},
              {"preemption_excluded", c.preemption_excluded}};
}

RunContext context_from(const json& j) {
  RunContext c;
  c.binary_path = j.value("binary_path", "");
  c.build_id = j.value("build_id", "");
  c.go_version = j.value("go_version", "");
  c.kernel = j.value("kernel", "");
  c.cpu_model = j.value("cpu_model", "");
  c.cpu_count = j.value("cpu_count", 0u);
  c.hostname = j.value("hostname", "");
  c.gate_version = j.value("gate_version", "");
  c.config_path = j.value("config_path", "");
  c.config_hash = j.value("config_hash", "");
  c.attach_mode = j.value("attach_mode", "");
  c.preemption_excluded = j.value("preemption_excluded", false);
  c.started_at = j.value("started_at", "");
  c.ended_at = j.value("ended_at", "");
  c.probe_cost_ns = j.value("probe_cost_ns", 0.0);
  if (j.contains("probe_calibration") && j.at("probe_calibration").is_object())
    c.calibration = calibration_from(j.at("probe_calibration"));
  return c;
}

}  // namespace result_json

using result_json::json;

std::string calibration_to_json_text(const ProbeCalibration& c) {
  json j = result_json::calibration_json(c);
  j["schema"] = "gate.probe_calibration";
  return j.dump(1) + "\n";
}

ProbeCalibration calibration_from_json_text(const std::string& text, const std::string& origin) {
  try {
    const json j = json::parse(text);
    if (!j.is_object() || j.value("schema", "") != "gate.probe_calibration")
      throw Error::make(origin, "is not a gate probe calibration (no \"schema\": \"gate.probe_calibration\")",
                        "delete it; gate measures the probes again");
    return result_json::calibration_from(j);
  } catch (const json::exception& e) {
    throw Error::make(origin, std::string("is not a valid probe calibration (") + e.what() + ")",
                      "delete it; gate measures the probes again");
  }
}

bool without_pilot_pairs(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                         std::vector<RunResult>& base, std::vector<RunResult>& head) {
  base.clear();
  head.clear();
  auto pilot = [](const RunResult& r) { return r.pilot; };
  if (std::none_of(base_runs.begin(), base_runs.end(), pilot) && std::none_of(head_runs.begin(), head_runs.end(), pilot))
    return false;
  for (size_t i = 0; i < base_runs.size() || i < head_runs.size(); ++i) {
    const bool b = i < base_runs.size(), h = i < head_runs.size();
    if ((b && base_runs[i].pilot) || (h && head_runs[i].pilot)) continue;
    if (b) base.push_back(base_runs[i]);
    if (h) head.push_back(head_runs[i]);
  }
  return true;
}

}  // namespace gate
