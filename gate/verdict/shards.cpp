// A comparison's shards: the plan of one shard, its partial file, and the merge of all of them.
#include "verdict/shards.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.hpp"
#include "runner/coverage.hpp"
#include "verdict/layouts.hpp"
#include "verdict/options.hpp"

namespace gate::verdict {

namespace {

constexpr int kPartialFormat = 1;

Error usage(const std::string& object, const std::string& cause, const std::string& fix) {
  return Error::make(object, cause, fix, ExitCode::kUsage);
}

// splitmix64's finaliser: neighbouring K give unrelated seeds.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  ShardSpec s;
  char slash = 0;
  std::istringstream in(text);
  const auto bad = [&](const std::string& cause) {
    return usage("--shard " + text, cause, "write K/N, this shard's number K from 1 to N, e.g. --shard 2/3");
  };
  if (!(in >> s.index >> slash >> s.count) || slash != '/' || !in.eof()) throw bad("is not K/N");
  if (s.count < 1 || s.index < 1 || s.index > s.count) throw bad("K must lie between 1 and N");
  return s;
}

uint64_t shard_seed(uint64_t seed, const ShardSpec& s) { return mix(seed ^ mix(static_cast<uint64_t>(s.index))); }

int shard_pairs(int total, const ShardSpec& s) {
  const int share = total / s.count + (s.index <= total % s.count ? 1 : 0);
  if (share < 1)
    throw usage("--shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + " of " + std::to_string(total) +
                    " pairs",
                "leaves this shard no pair to measure",
                "ask for at least as many pairs (--runs, or --max-runs) as shards");
  return share;
}

std::vector<std::string> shard_layouts(const std::vector<std::string>& binaries, const ShardSpec& s) {
  std::vector<std::string> out = binaries;
  if (!out.empty()) std::rotate(out.begin(), out.begin() + (s.index - 1) % out.size(), out.end());
  return out;
}

void unrotate_layouts(ResultFile& r, size_t layouts, const ShardSpec& s) {
  if (layouts < 2) return;
  for (auto& run : r.runs)
    if (run.layout >= 0) run.layout = static_cast<int>((run.layout + (s.index - 1)) % layouts);
}

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
    throw usage("partial " + origin, std::string("is not JSON: ") + e.what(), fix);
  }
  if (!j.is_object() || !j.contains("gate_partial"))
    throw usage("partial " + origin, "is not a shard's partial result (no \"gate_partial\" key)", fix);
  if (j["gate_partial"] != kPartialFormat)
    throw usage("partial " + origin, "has format " + j["gate_partial"].dump() + ", this gate reads " +
                                         std::to_string(kPartialFormat),
                "measure the shards and merge them with the same gate version");
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
    throw usage("partial " + origin, std::string("lacks a field: ") + e.what(), fix);
  }
  p.base = result_from_json_text(j.at("base").dump(), origin + " (base)");
  p.head = result_from_json_text(j.at("head").dump(), origin + " (head)");
  return p;
}

void save_partial(const std::string& path, const Partial& p) { write_file_atomically(path, partial_to_json_text(p)); }

Partial load_partial(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw usage("partial " + path, "cannot be read", "give the path of a file gate ab --shard wrote (--partial-out)");
  std::stringstream text;
  text << in.rdbuf();
  return partial_from_json_text(text.str(), path);
}

namespace {

// The first partial is the reference the others must match.
void require_same(const std::string& what, const std::string& ref, const std::string& ref_path, const std::string& v,
                  const std::string& path, const std::string& fix) {
  if (v == ref) return;
  throw usage("partial " + path, "has another " + what + " (" + v + ") than " + ref_path + " (" + ref + ")", fix);
}

}  // namespace

void require_one_comparison(const std::vector<Partial>& parts, const std::vector<std::string>& paths,
                            const runner::Config& cfg) {
  if (parts.empty()) throw usage("gate merge", "was given no partial", "name every shard's --partial-out file");
  const Partial& ref = parts.front();
  const std::string& ref_path = paths.front();
  const std::string rerun = "measure every shard of one comparison with the same config and binaries (the same "
                            "build artifacts), then merge those partials";
  std::map<int, std::string> seen;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Partial& p = parts[i];
    const std::string& path = paths[i];
    require_same("config", ref.config_hash, ref_path, p.config_hash, path, rerun);
    require_same("base binary (build id)", ref.base_build_id, ref_path, p.base_build_id, path, rerun);
    require_same("head binary (build id)", ref.head_build_id, ref_path, p.head_build_id, path, rerun);
    require_same("shard count", std::to_string(ref.shard.count), ref_path, std::to_string(p.shard.count), path,
                 "merge the partials of one matrix: every shard given --shard K/N with the same N");
    require_same("--seed", std::to_string(ref.seed), ref_path, std::to_string(p.seed), path,
                 "give every shard the same --seed (each derives its own from it and K)");
    if (p.base.partial || p.head.partial)
      throw usage("partial " + path, "holds an interrupted measurement (" +
                                         (p.base.partial ? p.base.partial_reason : p.head.partial_reason) + ")",
                  "run shard " + std::to_string(p.shard.index) + " again");
    if (p.base.runs.size() != p.head.runs.size() || p.base.runs.empty())
      throw usage("partial " + path, "has " + std::to_string(p.base.runs.size()) + " base and " +
                                         std::to_string(p.head.runs.size()) + " head runs, not pairs",
                  "run shard " + std::to_string(p.shard.index) + " again");
    if (auto [it, fresh] = seen.emplace(p.shard.index, path); !fresh)
      throw usage("shard " + std::to_string(p.shard.index) + "/" + std::to_string(p.shard.count),
                  "is given twice (" + it->second + " and " + path + ")", "give each shard's partial once");
  }
  for (int k = 1; k <= ref.shard.count; ++k)
    if (!seen.count(k))
      throw usage("shard " + std::to_string(k) + "/" + std::to_string(ref.shard.count), "is missing",
                  "download every shard's partial (a failed shard: run it again), or merge a matrix of fewer shards");
  if (ref.config_hash != cfg.hash)
    throw usage("config " + cfg.path, "is not the config the shards measured (" + cfg.hash + ", the shards " +
                                          ref.config_hash + ")",
                "merge with the gate.yaml of the commit the shards ran");
}

namespace {

// Pairs stay pairs: shard after shard, base run i and head run i of a shard land at the same index.
void append_runs(ResultFile& to, const ResultFile& from) {
  for (RunResult r : from.runs) {
    r.index = static_cast<int>(to.runs.size()) + 1;
    to.runs.push_back(std::move(r));
  }
}

// The noise of one shard's pairs: gate's own paired comparison on them alone, each function's p50
// noise (the log-sd of a pair's head/base), the median over functions.
double shard_noise(const Partial& p, stats::CompareOptions o) {
  if (p.pairs() < 2) return 0;
  o.min_runs = 2;
  o.first_look = o.last_look = 0;
  o.resamples = 200;  // the noise is read from the spread of pairs, not from the resampled interval
  const stats::Comparison c = stats::compare(p.base.runs, p.head.runs, p.base, p.head, o);
  std::vector<double> noise;
  for (const auto& f : c.functions)
    if (!f.quantiles.empty() && f.quantiles.front().tested() && f.quantiles.front().noise > 0)
      noise.push_back(f.quantiles.front().noise);
  if (noise.empty()) return 0;
  std::nth_element(noise.begin(), noise.begin() + noise.size() / 2, noise.end());
  return noise[noise.size() / 2];
}

// A runner much noisier than the others weighs on every interval: say so beside the verdicts.
void warn_noisy_shard(Merged& m) {
  std::vector<double> n;
  for (const auto& s : m.shards)
    if (s.noise > 0) n.push_back(s.noise);
  if (n.size() < 2) return;
  std::sort(n.begin(), n.end());
  const double median = n[n.size() / 2];
  for (const auto& s : m.shards)
    if (s.noise > 2 * median) {
      char times[32];
      snprintf(times, sizeof times, "%.1f", s.noise / median);
      m.comparison.warnings.push_back("shard " + std::to_string(s.index) + " (" + s.hostname + ") was " + times +
                                      "x as noisy as the median shard: its pairs widen every interval");
    }
}

int layouts_of(const ResultFile& r) {
  int n = 0;
  for (const auto& run : r.runs) n = std::max(n, run.layout + 1);
  return std::max(n, 1);
}

}  // namespace

Merged merge_shards(const runner::Config& cfg, std::vector<Partial> parts, const std::vector<std::string>& paths) {
  require_one_comparison(parts, paths, cfg);
  std::sort(parts.begin(), parts.end(), [](const Partial& a, const Partial& b) { return a.shard.index < b.shard.index; });
  Merged m;
  m.base = parts.front().base;
  m.head = parts.front().head;
  m.base.runs.clear();
  m.head.runs.clear();
  for (const auto& p : parts) {
    append_runs(m.base, p.base);
    append_runs(m.head, p.head);
  }
  const int pairs = static_cast<int>(m.head.runs.size());
  stats::CompareOptions o = compare_options(&cfg, m.head.functions);
  o.first_look = o.last_look = pairs;  // one look at every pair: no sequential correction, as a fixed gate ab
  for (const auto& p : parts)
    m.shards.push_back({p.shard.index, p.runner_label, p.hostname, p.pairs(), shard_noise(p, o)});
  m.comparison = judge_with_layouts(m.base.runs, m.head.runs, m.base, m.head, o, &m.notes);
  for (const auto& [r, side] : {std::pair{&m.base, "base"}, std::pair{&m.head, "head"}})
    for (auto& w : runner::uncalled_warnings(*r, side)) m.comparison.warnings.push_back(std::move(w));
  warn_noisy_shard(m);
  m.notes.base_executions_per_unit = parts.front().base_executions_per_unit;
  m.notes.head_executions_per_unit = parts.front().head_executions_per_unit;
  m.notes.base_layouts = layouts_of(m.base);
  m.notes.head_layouts = layouts_of(m.head);
  return m;
}

}  // namespace gate::verdict
