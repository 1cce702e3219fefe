// A shard's partial file: its JSON, read and written (results/partial.hpp).
#include "results/partial.hpp"

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/files.hpp"

namespace gate {

int Partial::pairs() const {
  int n = 0;
  for (size_t i = 0; i < base.runs.size() && i < head.runs.size(); ++i) n += !base.runs[i].pilot && !head.runs[i].pilot;
  return n;
}

namespace {

constexpr int kPartialFormat = 1;

}  // namespace

std::string partial_to_json_text(const Partial& p) {
  nlohmann::ordered_json j;
  j["gate_partial"] = kPartialFormat;
  j["shard"] = {{"index", p.shard.index}, {"count", p.shard.count}};
  j["seed"] = p.seed;
  j["shard_seed"] = p.shard_seed;
  j["runner"] = {{"fingerprint", p.runner}, {"label", p.runner_label}, {"hostname", p.hostname}};
  j["config_hash"] = p.config_hash;
  j["base_build_id"] = p.base_build_id;
  j["head_build_id"] = p.head_build_id;
  j["executions_per_unit"] = {{"base", p.base_executions_per_unit}, {"head", p.head_executions_per_unit}};
  j["pairs"] = p.pairs();
  j["base"] = nlohmann::ordered_json::parse(result_to_json_text(p.base, -1));
  j["head"] = nlohmann::ordered_json::parse(result_to_json_text(p.head, -1));
  return j.dump() + "\n";
}

Partial partial_from_json_text(const std::string& text, const std::string& origin) {
  const std::string fix = "give the files gate ab --shard K/N --partial-out wrote";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error::make("partial " + origin, std::string("is not JSON: ") + e.what(), fix, ExitCode::kUsage);
  }
  if (!j.is_object() || !j.contains("gate_partial"))
    throw Error::make("partial " + origin, "is not a shard's partial result (no \"gate_partial\" key)", fix,
                      ExitCode::kUsage);
  if (j["gate_partial"] != kPartialFormat)
    throw Error::make("partial " + origin,
                      "has format " + j["gate_partial"].dump() + ", this gate reads " + std::to_string(kPartialFormat),
                      "measure the shards and merge them with the same gate version", ExitCode::kUsage);
  Partial p;
  try {
    p.shard = {j.at("shard").at("index").get<int>(), j.at("shard").at("count").get<int>()};
    p.seed = j.at("seed").get<uint64_t>();
    p.shard_seed = j.at("shard_seed").get<uint64_t>();
    p.runner = j.at("runner").at("fingerprint").get<std::string>();
    p.runner_label = j.at("runner").value("label", "");
    p.hostname = j.at("runner").value("hostname", "");
    p.config_hash = j.at("config_hash").get<std::string>();
    p.base_build_id = j.at("base_build_id").get<std::string>();
    p.head_build_id = j.at("head_build_id").get<std::string>();
    p.base_executions_per_unit = j.at("executions_per_unit").at("base").get<int>();
    p.head_executions_per_unit = j.at("executions_per_unit").at("head").get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw Error::make("partial " + origin, std::string("lacks a field: ") + e.what(), fix, ExitCode::kUsage);
  }
  p.base = result_from_json_text(j.at("base").dump(), origin + " (base)");
  p.head = result_from_json_text(j.at("head").dump(), origin + " (head)");
  return p;
}

void save_partial(const std::string& path, const Partial& p) { write_file_atomically(path, partial_to_json_text(p)); }

Partial load_partial(const std::string& path) {
  const auto text = read_file(path);
  if (!text)
    throw Error::make("partial " + path, "cannot be read",
                      "give the path of a file gate ab --shard wrote (--partial-out)", ExitCode::kUsage);
  return partial_from_json_text(*text, path);
}

}  // namespace gate
