// Schema 1 of the result format, read only: each run lists one object per function. Kept so that
// baselines recorded by earlier versions still load (result_v2_read.cpp hands it their runs).
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "results/result.hpp"
#include "results/result_json.hpp"

namespace gate::result_json {

namespace {

FunctionRun function_run_from(const json& j) {
  FunctionRun f;
  f.name = j.at("name").get<std::string>();
  f.calls = j.at("calls").get<uint64_t>();
  f.sum_ns = j.value("sum_ns", uint64_t{0});
  f.min_ns = j.value("min_ns", uint64_t{0});
  f.max_ns = j.value("max_ns", uint64_t{0});
  for (const auto& pair : j.at("histogram")) {
    f.histogram.add_bucket(pair.at(0).get<uint32_t>(), pair.at(1).get<uint64_t>());
  }
  if (!histogram_agrees(f)) {
    throw Error("function '" + f.name + "': histogram holds " +
                std::to_string(f.histogram.count()) + " calls but 'calls' says " +
                std::to_string(f.calls));
  }
  f.unmatched_entries = j.value("unmatched_entries", uint64_t{0});
  f.unmatched_returns = j.value("unmatched_returns", uint64_t{0});
  f.diverted_entries = j.value("diverted_entries", uint64_t{0});
  f.dropped = j.value("dropped", uint64_t{0});
  return f;
}

RunResult run_from_v1_header(const json& j) {
  RunResult r;
  r.index = j.at("index").get<int>();
  r.variant = j.value("variant", "");
  r.exit_code = j.value("exit_code", 0);
  r.duration_s = j.value("duration_s", 0.0);
  r.started_at = j.value("started_at", "");
  return r;
}

}  // namespace

RunResult run_from_v1(const json& j) {
  RunResult r = run_from_v1_header(j);
  for (const auto& f : j.at("functions")) r.functions.push_back(function_run_from(f));
  if (j.contains("benchmarks")) benchmarks_from(j.at("benchmarks"), r);
  return r;
}

}  // namespace gate::result_json
