// Reads gate.yaml with yaml-cpp into a Config: the known keys, the order they are read in (the
// workload's form, the run settings every form shares, the functions, the verdict settings), their
// defaults, and Config's queries. Unknown keys are errors (a typo must not silently disable a
// threshold); every error names the file, line, key and the fix. The readers are yaml_fields.cpp's,
// each form's keys config_<form>.cpp's, the rules across keys config_check.cpp's.
#include "runner/config.hpp"

#include <yaml-cpp/yaml.h>

#include <cstring>
#include <cstdlib>
#include <filesystem>

#include "common/error.hpp"
#include "common/name_pattern.hpp"
#include "common/files.hpp"
#include "common/fnv.hpp"
#include "runner/config_parse.hpp"

namespace gate::runner {

namespace fs = std::filesystem;

std::vector<std::string> Config::patterns() const {
  std::vector<std::string> out;
  for (const auto& f : functions)
    if (!f.native) out.push_back(f.pattern);
  return out;
}

namespace {

// The setting of the first entry whose pattern matches the function and sets it, else `fallback`.
std::string setting_of(const std::vector<FunctionSpec>& functions, const std::string& function,
                       std::string FunctionSpec::*field, const std::string& fallback) {
  for (const auto& f : functions)
    if (!f.native && !(f.*field).empty() && NamePattern::parse(f.pattern).matches(function)) return f.*field;
  return fallback;
}

}  // namespace

std::string Config::measure_of(const std::string& function) const {
  if (calls_of(function) == "entry") return "samples";  // the probes time nothing
  return setting_of(functions, function, &FunctionSpec::measure, measure);
}

std::string Config::calls_of(const std::string& function) const {
  return setting_of(functions, function, &FunctionSpec::calls, calls);
}

bool Config::samples_needed() const {
  if (functions.empty()) return false;  // benchmarks only: nothing to sample, no BPF at all
  if (measure != "probes" || calls == "entry") return true;
  for (const auto& f : functions)
    if ((!f.measure.empty() && f.measure != "probes") || f.calls == "entry") return true;
  return false;
}

std::vector<plan::NativeRequest> Config::native_requests() const {
  std::vector<plan::NativeRequest> out;
  for (const auto& f : functions)
    if (f.native)
      out.push_back({f.library.find('/') == std::string::npos ? f.library : yaml::absolute(dir, f.library), f.symbol,
                     path + ":" + std::to_string(f.line)});
  return out;
}

std::vector<plan::BucketRequest> Config::bucket_requests() const {
  std::vector<plan::BucketRequest> out;
  for (const auto& f : functions)
    if (f.bucket_by) out.push_back({f.pattern, *f.bucket_by, path + ":" + std::to_string(f.line)});
  return out;
}

plan::NativeOptions native_options(const Config& cfg) {
  plan::NativeOptions o;
  o.returns = plan::parse_native_returns(cfg.native_returns);
  if (auto it = cfg.env.find("LD_LIBRARY_PATH"); it != cfg.env.end()) o.ld_library_path = it->second;
  else if (const char* v = std::getenv("LD_LIBRARY_PATH")) o.ld_library_path = v;
  return o;
}

namespace config_parse {
namespace {

// How every form runs: run counts, the unit's length, layouts, the instruments, the timeout and
// the environment.
void parse_runs(const Ctx& c, const YAML::Node& root, Config& cfg) {
  if (root["runs"]) cfg.runs = static_cast<int>(number(c, root["runs"], "runs", 1, 10000));
  if (root["max_runs"]) cfg.max_runs = static_cast<int>(number(c, root["max_runs"], "max_runs", 1, 10000));
  check_max_runs(c, root, cfg);
  if (root["suspect_max_runs"]) {
    cfg.suspect_max_runs = static_cast<int>(number(c, root["suspect_max_runs"], "suspect_max_runs", 1, 10000));
    check_suspect_max_runs(c, root, cfg);
  }
  if (root["warmup_runs"]) cfg.warmup_runs = static_cast<int>(number(c, root["warmup_runs"], "warmup_runs", 0, 100));
  if (const YAML::Node n = root["min_unit_seconds"]) {
    const double v = n.IsScalar() ? n.as<double>(-1) : -1;
    if (!(v >= 0 && v <= 3600))
      throw c.err(n, "min_unit_seconds",
                  "must be a number of seconds from 0 to 3600, got '" + (n.IsScalar() ? n.as<std::string>() : "?") + "'",
                  "write min_unit_seconds: 1 (a unit repeats a shorter workload until it lasts 1 s; 0: one execution "
                  "a unit)");
    cfg.min_unit_seconds = v;
  }
  if (const YAML::Node n = root["layouts"]) {
    const double v = n.IsScalar() ? n.as<double>(-1) : -1;
    if (!(v >= 1 && v <= 64 && v == static_cast<int>(v)))
      throw c.err(n, "layouts",
                  "must be a whole number of layout variants from 1 to 64, got '" +
                      (n.IsScalar() ? n.as<std::string>() : "?") + "'",
                  "write layouts: 3 (three -randlayout builds a side), or layouts: 1 to build one binary a side");
    cfg.layouts = static_cast<int>(v);
  }
  if (root["max_in_flight"])
    cfg.max_in_flight = static_cast<uint32_t>(number(c, root["max_in_flight"], "max_in_flight", 1024, 16777216));
  // profile: {hz: N}: sampled CPU profiles in every run (gate/profile; docs/profile.md).
  if (const YAML::Node n = root["profile"]) {
    if (!n.IsMap()) throw c.err(n, "profile", "must be a map", "write profile: {hz: 199}");
    check_keys(c, n, "profile", {"hz"});
    cfg.profile_hz = n["hz"] ? static_cast<int>(number(c, n["hz"], "profile.hz", 1, 10000)) : 199;
  }
  if (root["measure"]) cfg.measure = one_of(c, root["measure"], "measure", {"auto", "probes", "samples"});
  if (root["calls"]) cfg.calls = one_of(c, root["calls"], "calls", {"auto", "exact", "entry"});
  // sampling: {hz: N, probe_share: F}: the sampled instrument (docs/how-it-measures.md).
  if (const YAML::Node n = root["sampling"]) {
    if (!n.IsMap()) throw c.err(n, "sampling", "must be a map", "write sampling: {hz: 4999}");
    check_keys(c, n, "sampling", {"hz", "probe_share"});
    if (n["hz"]) cfg.sampling_hz = static_cast<int>(number(c, n["hz"], "sampling.hz", 1, 10000));
    // Still accepted, no longer used: measure: auto judges by both instruments (issue 54).
    if (n["probe_share"]) number(c, n["probe_share"], "sampling.probe_share", 0, 1);
  }
  if (root["timeout"]) cfg.timeout_s = duration_s(c, root["timeout"], "timeout");
  if (root["env"]) {
    const auto& e = root["env"];
    if (!e.IsMap()) throw c.err(e, "env", "must be a map of NAME: value", "e.g. env: {GOMAXPROCS: \"2\"}");
    for (const auto& kv : e) {
      const std::string k = key_text(c, kv.first);
      cfg.env[k] = str(c, kv.second, "env." + k);
    }
  }
}

}  // namespace
}  // namespace config_parse

Config load_config(const std::string& path) {
  const auto text = read_file(path);
  if (!text) {
    throw Error::make(path, std::string("cannot be read (") + std::strerror(errno) + ")",
                      "pass the path of your gate.yaml with --config (see examples/shop/gate.yaml)");
  }
  return parse_config(*text, path);
}

Config parse_config(const std::string& text, const std::string& path, const std::string& label) {
  using namespace config_parse;  // the parse, check and read functions by their short names
  const Ctx c{label.empty() ? path : label};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error::make(c.file + ":" + std::to_string(e.mark.line + 1), "is not valid YAML: " + e.msg,
                      "fix the syntax at that line (JSON is valid YAML too)");
  }
  if (!root.IsMap()) throw Error::make(c.file, "must be a YAML map of keys", "see examples/shop/gate.yaml");
  check_keys(c, root, "the config",
             {"name", "build", "binary", "workload", "service", "runs", "max_runs", "timeout", "env",
              "functions", "quantiles", "threshold", "thresholds", "calls_change", "fail_on_calls_change",
              "fail_on_insufficient_data", "baseline", "warmup_runs", "max_in_flight", "speed_normalization",
              "pairing", "benchmarks", "benchmark_cpu", "exclude_preemption", "suspect_max_runs", "fail_on_suspect", "family",
              "native_returns", "profile", "min_unit_seconds", "layouts", "measure", "calls", "sampling", "run_as"});
  Config cfg;
  cfg.path = fs::absolute(path).lexically_normal().string();
  cfg.dir = fs::path(cfg.path).parent_path().string();
  cfg.hash = fnv1a64_fingerprint(text);
  try {
    cfg.name = root["name"] ? str(c, root["name"], "name") : fs::path(path).stem().string();
    // The workload's form: a command or a service, exactly one.
    parse_workload(c, root, cfg);
    if (root["service"]) cfg.service = parse_service(c, root["service"]);
    check_form(c, root, cfg);
    parse_runs(c, root, cfg);
    // The functions, or none in a benchmarks-only config.
    const auto& fns = root["functions"];
    if (!benchmarks_only(c, root, fns))
      for (const auto& f : fns) cfg.functions.push_back(parse_function(c, f));
    if (root["native_returns"]) {
      cfg.native_returns = str(c, root["native_returns"], "native_returns");
      try {
        plan::parse_native_returns(cfg.native_returns);
      } catch (const Error& e) {
        throw c.err(root["native_returns"], "native_returns", e.cause(), e.fix());
      }
    }
    parse_verdict(c, root, cfg);
    parse_benchmarks(c, root, cfg);
    if (root["baseline"]) cfg.baseline = absolute(cfg.dir, str(c, root["baseline"], "baseline"));
    if (root["run_as"]) {
      cfg.run_as = str(c, root["run_as"], "run_as");
      if (cfg.run_as.empty() || cfg.run_as.find_first_of(" \t:/") != std::string::npos)
        throw c.err(root["run_as"], "run_as", "is \"" + cfg.run_as + "\", not a user name nor a uid",
                    "give the user the workload and build run as, e.g. run_as: ci or run_as: 1000");
    }
  } catch (const YAML::Exception& e) {  // a shape yaml-cpp refused that no check above foresaw
    const std::string line = e.mark.line >= 0 ? ":" + std::to_string(e.mark.line + 1) : "";
    throw Error::make(c.file + line, "has a value of the wrong type: " + e.msg,
                      "see the gate.yaml reference in README.md");
  }
  return cfg;
}

}  // namespace gate::runner
