// JSON serialization of ResultFile (schema "gate.result", versioned) and atomic file writes:
// a result or baseline is either wholly written or the old file is left as it was.
#include "results/result.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.hpp"
#include "common/files.hpp"

namespace gate {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kSchemaName = "gate.result";

json to_json(const FunctionInfo& f) {
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

FunctionInfo function_info_from(const json& j) {
  FunctionInfo f;
  f.id = j.at("id").get<uint32_t>();
  f.name = j.at("name").get<std::string>();
  f.address = j.value("address", uint64_t{0});
  f.size = j.value("size", uint64_t{0});
  f.measurable = j.value("measurable", true);
  f.not_measurable_reason = j.value("not_measurable_reason", "");
  if (j.contains("entry")) {
    const auto& e = j.at("entry");
    f.entry_placement = e.value("placement", "");
    f.entry_instruction = e.value("instruction", "");
    f.entry_cost_class = e.value("cost_class", "");
    f.entry_address = e.value("address", uint64_t{0});
  }
  f.return_addresses = j.value("return_addresses", std::vector<uint64_t>{});
  f.inlined_at = j.value("inlined_at", std::vector<std::string>{});
  return f;
}

json callers_json(const std::vector<TrueTimeRun::Caller>& callers) {
  json a = json::array();
  for (const auto& c : callers) a.push_back({{"caller", c.name}, {"calls", c.calls}, {"sum_ns", c.sum_ns}});
  return a;
}

// True-time keys, in their own object so that results from before them still load.
json true_time_json(const TrueTimeRun& t) {
  json self_hist = json::array();
  for (const auto& [b, n] : t.self_histogram.buckets()) self_hist.push_back({b, n});
  return json{{"raw_sum_ns", t.raw_sum_ns},   {"raw_min_ns", t.raw_min_ns},
              {"raw_max_ns", t.raw_max_ns},   {"descendants", t.descendants},
              {"self_sum_ns", t.self_sum_ns}, {"self_histogram", self_hist},
              {"clamped", t.clamped},         {"uncompensated", t.uncompensated},
              {"callers", callers_json(t.callers)}};
}

TrueTimeRun true_time_from(const json& j) {
  TrueTimeRun t;
  t.present = true;
  t.raw_sum_ns = j.value("raw_sum_ns", uint64_t{0});
  t.raw_min_ns = j.value("raw_min_ns", uint64_t{0});
  t.raw_max_ns = j.value("raw_max_ns", uint64_t{0});
  t.descendants = j.value("descendants", uint64_t{0});
  t.self_sum_ns = j.value("self_sum_ns", uint64_t{0});
  for (const auto& pair : j.value("self_histogram", json::array()))
    t.self_histogram.add_bucket(pair.at(0).get<uint32_t>(), pair.at(1).get<uint64_t>());
  t.clamped = j.value("clamped", uint64_t{0});
  t.uncompensated = j.value("uncompensated", uint64_t{0});
  for (const auto& c : j.value("callers", json::array()))
    t.callers.push_back({c.at("caller").get<std::string>(), c.value("calls", uint64_t{0}), c.value("sum_ns", uint64_t{0})});
  return t;
}

json cost_json(const CostFigure& c) {
  return json{{"median_ns", c.median_ns}, {"low_ns", c.low_ns}, {"high_ns", c.high_ns}};
}
CostFigure cost_from(const json& j) {
  return CostFigure{j.value("median_ns", 0.0), j.value("low_ns", 0.0), j.value("high_ns", 0.0)};
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

json to_json(const FunctionRun& f) {
  json hist = json::array();
  for (const auto& [b, n] : f.histogram.buckets()) hist.push_back({b, n});
  auto q = [&](double p) { return f.calls ? json(f.quantile_ns(p)) : json(nullptr); };
  return json{{"name", f.name},
              {"calls", f.calls},
              {"sum_ns", f.sum_ns},
              {"min_ns", f.min_ns},
              {"max_ns", f.max_ns},
              {"p50_ns", q(0.50)},
              {"p90_ns", q(0.90)},
              {"p99_ns", q(0.99)},
              {"histogram", hist},
              {"unmatched_entries", f.unmatched_entries},
              {"unmatched_returns", f.unmatched_returns},
              {"diverted_entries", f.diverted_entries},
              {"dropped", f.dropped},
              {"true_time", f.true_time.present ? true_time_json(f.true_time) : json(nullptr)}};
}

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
  if (f.histogram.count() != f.calls) {
    throw Error("function '" + f.name + "': histogram holds " +
                std::to_string(f.histogram.count()) + " calls but 'calls' says " +
                std::to_string(f.calls));
  }
  f.unmatched_entries = j.value("unmatched_entries", uint64_t{0});
  f.unmatched_returns = j.value("unmatched_returns", uint64_t{0});
  f.diverted_entries = j.value("diverted_entries", uint64_t{0});
  f.dropped = j.value("dropped", uint64_t{0});
  if (j.contains("true_time") && j.at("true_time").is_object()) f.true_time = true_time_from(j.at("true_time"));
  return f;
}

json to_json(const RunResult& r) {
  json fns = json::array();
  for (const auto& f : r.functions) fns.push_back(to_json(f));
  return json{{"index", r.index},         {"variant", r.variant},
              {"exit_code", r.exit_code}, {"duration_s", r.duration_s},
              {"started_at", r.started_at}, {"functions", fns},
              {"lost_call_edges", r.lost_call_edges}};
}

RunResult run_from(const json& j) {
  RunResult r;
  r.index = j.at("index").get<int>();
  r.variant = j.value("variant", "");
  r.exit_code = j.value("exit_code", 0);
  r.duration_s = j.value("duration_s", 0.0);
  r.started_at = j.value("started_at", "");
  for (const auto& f : j.at("functions")) r.functions.push_back(function_run_from(f));
  r.lost_call_edges = j.value("lost_call_edges", uint64_t{0});
  return r;
}

json to_json(const RunContext& c) {
  return json{{"binary_path", c.binary_path}, {"build_id", c.build_id},
              {"go_version", c.go_version},   {"kernel", c.kernel},
              {"cpu_model", c.cpu_model},     {"cpu_count", c.cpu_count},
              {"hostname", c.hostname},       {"gate_version", c.gate_version},
              {"config_path", c.config_path}, {"config_hash", c.config_hash},
              {"attach_mode", c.attach_mode}, {"started_at", c.started_at},
              {"ended_at", c.ended_at},       {"probe_cost_ns", c.probe_cost_ns},
              {"probe_calibration", c.calibration.present ? calibration_json(c.calibration) : json(nullptr)}};
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
  c.started_at = j.value("started_at", "");
  c.ended_at = j.value("ended_at", "");
  c.probe_cost_ns = j.value("probe_cost_ns", 0.0);
  if (j.contains("probe_calibration") && j.at("probe_calibration").is_object())
    c.calibration = calibration_from(j.at("probe_calibration"));
  return c;
}

}  // namespace

std::string result_to_json_text(const ResultFile& r, int indent) {
  json fns = json::array();
  for (const auto& f : r.functions) fns.push_back(to_json(f));
  json runs = json::array();
  for (const auto& run : r.runs) runs.push_back(to_json(run));
  json j{{"schema", kSchemaName},
         {"schema_version", r.schema_version},
         {"histogram", {{"unit", "ns"},
                        {"scheme", "log-linear: exact below 64 ns, then 32 sub-buckets per power of two"},
                        {"buckets", LatencyHistogram::bucket_count()},
                        {"entry", "[bucket index, count]"}}},
         {"partial", r.partial},
         {"partial_reason", r.partial_reason},
         {"context", to_json(r.context)},
         {"functions", fns},
         {"runs", runs},
         {"extra", r.extra}};
  return j.dump(indent) + "\n";
}

ResultFile result_from_json_text(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error::make(origin, std::string("is not valid JSON (") + e.what() + ")",
                      "the file is corrupt or truncated; re-create it with `gate run`/`gate record`");
  }
  if (!j.is_object() || j.value("schema", "") != kSchemaName) {
    throw Error::make(origin, "is not a gate result file (no \"schema\": \"gate.result\")",
                      "pass a file written by `gate run --out` or `gate record`");
  }
  const int version = j.value("schema_version", 0);
  if (version != kResultSchemaVersion) {
    throw Error::make(origin, "has schema version " + std::to_string(version) +
                                  ", this gate reads version " +
                                  std::to_string(kResultSchemaVersion),
                      "re-record it with this gate version");
  }
  try {
    ResultFile r;
    r.schema_version = version;
    r.partial = j.value("partial", false);
    r.partial_reason = j.value("partial_reason", "");
    r.context = context_from(j.at("context"));
    for (const auto& f : j.at("functions")) r.functions.push_back(function_info_from(f));
    for (const auto& run : j.at("runs")) r.runs.push_back(run_from(run));
    if (j.contains("extra")) r.extra = j.at("extra").get<std::map<std::string, std::string>>();
    return r;
  } catch (const json::exception& e) {
    throw Error::make(origin, std::string("has a malformed field (") + e.what() + ")",
                      "the file is corrupt or was edited by hand; re-create it");
  } catch (const Error& e) {
    throw Error::make(origin, e.what(), "the file is corrupt; re-create it");
  }
}

ResultFile load_result_file(const std::string& path) {
  const auto text = read_file(path);
  if (!text) {
    throw Error::make(path, std::string("cannot be read (") + std::strerror(errno) + ")",
                      "check the path; `gate record` creates baselines");
  }
  return result_from_json_text(*text, path);
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    throw Error::make(path, std::string("cannot create a temporary file beside it (") +
                                std::strerror(errno) + ")",
                      "check that " + dir.string() + " exists and is writable", ExitCode::kMeasure);
  }
  auto fail = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    return Error::make(path, std::string(what) + " (" + std::strerror(err) + "); the old file is unchanged",
                       "free disk space or fix permissions, then run again", ExitCode::kMeasure);
  };
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail("write failed");
    }
    off += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) throw fail("chmod failed");
  if (::fsync(fd) != 0) throw fail("fsync failed");
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    throw Error::make(path, "close failed; the old file is unchanged", "", ExitCode::kMeasure);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw Error::make(path, std::string("rename failed (") + std::strerror(err) + "); the old file is unchanged",
                      "check permissions of " + dir.string(), ExitCode::kMeasure);
  }
  // Make the rename itself durable.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void save_result_file(const std::string& path, const ResultFile& r) {
  write_file_atomically(path, result_to_json_text(r));
}

}  // namespace gate

namespace gate {

std::string calibration_to_json_text(const ProbeCalibration& c) {
  json j = calibration_json(c);
  j["schema"] = "gate.probe_calibration";
  return j.dump(1) + "\n";
}

ProbeCalibration calibration_from_json_text(const std::string& text, const std::string& origin) {
  try {
    const json j = json::parse(text);
    if (!j.is_object() || j.value("schema", "") != "gate.probe_calibration")
      throw Error::make(origin, "is not a gate probe calibration (no \"schema\": \"gate.probe_calibration\")",
                        "delete it; gate measures the probes again");
    return calibration_from(j);
  } catch (const json::exception& e) {
    throw Error::make(origin, std::string("is not a valid probe calibration (") + e.what() + ")",
                      "delete it; gate measures the probes again");
  }
}

}  // namespace gate
