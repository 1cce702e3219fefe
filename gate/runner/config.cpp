// Parses and validates gate.yaml with yaml-cpp. Unknown keys are errors (a typo must not
// silently disable a threshold); every error names the file, line, key and the fix.
#include "runner/config.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/error.hpp"
#include "common/name_pattern.hpp"
#include "common/files.hpp"
#include "common/fnv.hpp"
#include "common/numbers.hpp"

namespace gate::runner {

namespace fs = std::filesystem;

namespace {

struct Ctx {
  std::string file;
  Error err(const YAML::Node& n, const std::string& key, const std::string& cause,
            const std::string& fix) const {
    std::string where = file;
    if (n.IsDefined() && n.Mark().line >= 0) where += ":" + std::to_string(n.Mark().line + 1);
    return Error::make(where + ": '" + key + "'", cause, fix);
  }
};

// A map key as text; a key that is itself a list or map is an error at its line.
std::string key_text(const Ctx& c, const YAML::Node& k) {
  if (!k.IsScalar()) throw c.err(k, "?", "is not a plain key", "keys are names, e.g. runs: 5");
  return k.as<std::string>();
}

void check_keys(const Ctx& c, const YAML::Node& map, const std::string& what,
                const std::set<std::string>& allowed) {
  for (const auto& kv : map) {
    const std::string k = key_text(c, kv.first);
    if (!allowed.count(k)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw c.err(kv.first, k, "is not a known key of " + what, "use one of: " + list);
    }
  }
}

bool boolean(const Ctx& c, const YAML::Node& n, const std::string& key) {
  try {
    return n.as<bool>();
  } catch (const YAML::Exception&) {
    throw c.err(n, key, "must be true or false, got '" + (n.IsScalar() ? n.as<std::string>() : "a list or map") + "'",
                "write " + key + ": true or " + key + ": false");
  }
}

// A key that takes true, false or one word (speed_normalization: fitted, exclude_preemption:
// auto): nullopt for the word; anything else is an error naming the three and `fix`.
std::optional<bool> bool_or(const Ctx& c, const YAML::Node& n, const std::string& key, const std::string& word,
                            const std::string& fix) {
  if (n.IsScalar() && n.Scalar() == word) return std::nullopt;
  try {
    return n.as<bool>();
  } catch (const YAML::Exception&) {
    throw c.err(n, key,
                "must be true, false or " + word + ", got '" + (n.IsScalar() ? n.Scalar() : std::string("a list or map")) +
                    "'",
                fix);
  }
}

std::string str(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) throw c.err(n, key, "must be a string", "write it as key: value");
  return n.as<std::string>();
}

double number(const Ctx& c, const YAML::Node& n, const std::string& key, double lo, double hi) {
  double v;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    throw c.err(n, key, "must be a number, got '" + (n.IsScalar() ? n.as<std::string>() : "?") + "'", "");
  }
  if (!(v >= lo && v <= hi)) {
    std::ostringstream r;
    r << "must be between " << lo << " and " << hi << ", got " << v;
    throw c.err(n, key, r.str(), "");
  }
  return v;
}

// A string from a fixed list: the error names the key, the value and the choices.
std::string one_of(const Ctx& c, const YAML::Node& n, const std::string& key, std::initializer_list<const char*> choices) {
  const std::string v = str(c, n, key);
  std::string list;
  for (const char* ch : choices) {
    if (v == ch) return v;
    list += (list.empty() ? "" : ", ") + std::string(ch);
  }
  throw c.err(n, key, "is \"" + v + "\"", "use one of: " + list);
}

// "90s", "2m", "500ms", "1h" or a plain number of seconds.
double duration_s(const Ctx& c, const YAML::Node& n, const std::string& key) {
  std::string s = str(c, n, key);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  std::string unit = s.substr(i);
  double v = 0;
  try {
    v = std::stod(s.substr(0, i));
  } catch (...) {
    throw c.err(n, key, "is not a duration: '" + s + "'", "write e.g. 90s, 2m, 500ms");
  }
  double mul = unit.empty() || unit == "s" ? 1 : unit == "ms" ? 1e-3 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (mul < 0) throw c.err(n, key, "has an unknown unit '" + unit + "'", "use ms, s, m or h");
  if (v * mul <= 0) throw c.err(n, key, "must be positive", "");
  return v * mul;
}

// A threshold: 0.1, "10%". below_one: a band (it bands improvements too); else a change ratio
// (calls_change: 50% = 1.5x more or fewer calls), up to 10.
double threshold(const Ctx& c, const YAML::Node& n, const std::string& key, bool below_one = true) {
  std::string s = str(c, n, key);
  const std::optional<double> parsed = parse_fraction(s);
  if (!parsed) throw c.err(n, key, "is not a threshold: '" + s + "'", "write a fraction (0.1) or a percentage (10%)");
  const double v = *parsed;
  // A threshold bands both ways: improvements too, and nothing gets 100% faster, so 100% or more is
  // refused here, not by gate ab after it measured (the options' check would).
  if (!below_one && !(v > 0 && v < 10)) throw c.err(n, key, "must be above 0% and below 1000%", "write e.g. 50% (or 0.5)");
  if (below_one && !(v > 0 && v < 1))
    throw c.err(n, key, "must be above 0% and below 100%: it is the band both ways, and nothing gets 100% faster",
                "write e.g. 10% (or 0.1); a noisy quantile takes a wider one, e.g. thresholds: {p99: 50%}");
  return v;
}

const std::array<std::string, 4> kQuantiles = {"p50", "p90", "p99", "mean"};

void check_quantile(const Ctx& c, const YAML::Node& n, const std::string& q) {
  for (const auto& k : kQuantiles)
    if (k == q) return;
  throw c.err(n, q, "is not a supported quantile", "use p50, p90, p99 or mean");
}

std::map<std::string, double> quantile_map(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsMap()) throw c.err(n, key, "must be a map of quantile: threshold", "e.g. {p50: 5%, p99: 20%}");
  std::map<std::string, double> out;
  for (const auto& kv : n) {
    std::string q = key_text(c, kv.first);
    check_quantile(c, kv.first, q);
    out[q] = threshold(c, kv.second, key + "." + q);
  }
  return out;
}

std::string absolute(const std::string& dir, const std::string& p) {
  return fs::path(p).is_absolute() ? p : (fs::path(dir) / p).lexically_normal().string();
}

}  // namespace

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
      out.push_back({f.library.find('/') == std::string::npos ? f.library : absolute(dir, f.library), f.symbol,
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

namespace {

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
    if (sv.alternate == "rounds" && sv.ready_tcp.find(kPortPlaceholder) == std::string::npos)
      throw c.err(s["alternate"], "service.alternate",
                  "is rounds, which runs both sides' services at once, but ready_tcp has no {port}: they cannot "
                  "both listen on one fixed address",
                  "write {port} in service.command, ready_tcp and load, or say alternate: units");
  }
  if ((sv.load + sv.command).find(kUrlPlaceholder) != std::string::npos && sv.ready_tcp.empty())
    throw c.err(s, "service.ready_tcp", "is missing, and {url} in service.load or command is made from it",
                "set ready_tcp: 127.0.0.1:{port} (and {port} in service.command)");
  // A {port} only in the command or the load would start the service on a port nobody waits for.
  const bool port_in_cmd = sv.command.find(kPortPlaceholder) != std::string::npos ||
                           sv.load.find(kPortPlaceholder) != std::string::npos;
  if (port_in_cmd && sv.ready_tcp.find(kPortPlaceholder) == std::string::npos) {
    throw c.err(s["ready_tcp"] ? s["ready_tcp"] : s, "service.ready_tcp",
                "must use {port} too: service.command or service.load uses it",
                "e.g. ready_tcp: 127.0.0.1:{port}");
  }
  return sv;
}

// What runs and how: build, binary, workload or service, run counts, timeouts, environment.
void parse_workload(const Ctx& c, const YAML::Node& root, Config& cfg) {
  if (root["build"]) cfg.build = str(c, root["build"], "build");
  if (!root["binary"]) {
    throw c.err(root, "binary", "is missing", "name the Go binary to probe, e.g. binary: bin/shop");
  }
  cfg.binary = absolute(cfg.dir, str(c, root["binary"], "binary"));
  if (root["workload"]) cfg.workload = str(c, root["workload"], "workload");
  if (root["service"]) cfg.service = parse_service(c, root["service"]);
  if (cfg.workload.empty() == !cfg.service.has_value()) {
    throw c.err(root, cfg.workload.empty() ? "workload" : "service",
                cfg.workload.empty() ? "is missing: say how to drive the binary"
                                     : "and 'workload' are both set: use one",
                "either workload: <command run per run> or service: {command, load}");
  }
  if (root["runs"]) cfg.runs = static_cast<int>(number(c, root["runs"], "runs", 1, 10000));
  if (root["max_runs"]) cfg.max_runs = static_cast<int>(number(c, root["max_runs"], "max_runs", 1, 10000));
  if (cfg.max_runs && cfg.max_runs < cfg.runs)
    throw c.err(root["max_runs"], "max_runs", "is below runs (" + std::to_string(cfg.runs) + ")", "raise max_runs or lower runs");
  if (root["suspect_max_runs"]) {
    cfg.suspect_max_runs = static_cast<int>(number(c, root["suspect_max_runs"], "suspect_max_runs", 1, 10000));
    const int floor = std::max(cfg.runs, cfg.max_runs);
    if (cfg.suspect_max_runs < floor)
      throw c.err(root["suspect_max_runs"], "suspect_max_runs",
                  "is below " + std::string(cfg.max_runs ? "max_runs" : "runs") + " (" + std::to_string(floor) + ")",
                  "raise it to at least " + std::to_string(floor) + " (equal: never measure past max_runs)");
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

// bucket_by: {arg: NAME, by: len|value|nil, bounds: [16, 1KiB, ...]} (plan/buckets.hpp).
plan::BucketBy parse_bucket_by(const Ctx& c, const YAML::Node& n, const std::string& key) {
  constexpr size_t kMaxBounds = 8;  // GATE_ARG_MAX_BOUNDS (bpf/gate_shared.h)
  if (!n.IsMap())
    throw c.err(n, key, "must be a map", "e.g. bucket_by: {arg: b, by: len, bounds: [1KiB, 16KiB]}");
  check_keys(c, n, key, {"arg", "by", "bounds"});
  plan::BucketBy b;
  if (!n["arg"])
    throw c.err(n, key + ".arg", "is missing", "name the argument (`gate functions BINARY --args` lists them)");
  b.arg = str(c, n["arg"], key + ".arg");
  if (n["by"]) b.by = str(c, n["by"], key + ".by");
  if (b.by != "len" && b.by != "value" && b.by != "nil")
    throw c.err(n["by"], key + ".by", "is \"" + b.by + "\"",
                "use len (string, slice, map, chan), value (integer, bool) or nil (pointer, map, chan)");
  const auto& bounds = n["bounds"];
  if (b.by == "nil") {
    if (bounds)
      throw c.err(bounds, key + ".bounds", "is set with by: nil, whose buckets are nil and not nil", "remove bounds");
    return b;
  }
  if (!bounds || !bounds.IsSequence() || bounds.size() == 0 || bounds.size() > kMaxBounds)
    throw c.err(bounds ? bounds : n, key + ".bounds", "must list 1 to " + std::to_string(kMaxBounds) + " bounds",
                "e.g. bounds: [1KiB, 4KiB, 16KiB] (a call lands in the bucket below the first bound it is under)");
  for (const auto& v : bounds) {
    const std::string text = str(c, v, key + ".bounds[]");
    int64_t x;
    try {
      x = plan::parse_bound(text);
    } catch (const std::exception&) {
      throw c.err(v, key + ".bounds[]", "is not a bound: '" + text + "'",
                  "write an integer, optionally with KiB, MiB or GiB: 16, 1KiB, 4MiB");
    }
    if (!b.bounds.empty() && x <= b.bounds.back())
      throw c.err(v, key + ".bounds", "are not increasing: " + text + " follows " + b.bound_texts.back(),
                  "list the bounds from small to large, each once");
    b.bounds.push_back(x);
    b.bound_texts.push_back(text);
  }
  return b;
}

// {native: GLOB} or {library: NAME_OR_PATH, symbol: GLOB} (plan/native_plan.hpp): a C or C++
// function in the binary or in a shared library. A library path is relative to the config.
void parse_native_function(const Ctx& c, const YAML::Node& f, FunctionSpec& spec) {
  const bool lib = static_cast<bool>(f["library"]) || static_cast<bool>(f["symbol"]);
  if (!f["native"] && !lib) return;
  if (f["name"] || (f["native"] && lib))
    throw c.err(f, "functions[]", "mixes name:, native: and library:/symbol:",
                "use one: name: for a Go function, native: for a C/C++ function of the binary, or library: with "
                "symbol: for one in a shared library");
  spec.native = true;
  if (f["native"]) {
    spec.symbol = str(c, f["native"], "native");
    spec.pattern = spec.symbol;
  } else {
    if (!f["library"] || !f["symbol"])
      throw c.err(f, f["library"] ? "functions[].symbol" : "functions[].library", "is missing",
                  "a shared-library function needs both: {library: libc.so.6, symbol: qsort}");
    spec.library = str(c, f["library"], "library");
    spec.symbol = str(c, f["symbol"], "symbol");
    spec.pattern = plan::native_display_name(spec.symbol, spec.library);
  }
  if (spec.symbol.empty()) throw c.err(f, "functions[]", "has an empty native name", "");
}

FunctionSpec parse_function(const Ctx& c, const YAML::Node& f) {
  FunctionSpec spec;
  spec.line = f.Mark().line + 1;
  if (f.IsScalar()) {
    spec.pattern = f.as<std::string>();
  } else if (f.IsMap()) {
    check_keys(c, f, "a function entry",
               {"name", "threshold", "thresholds", "optional", "bucket_by", "native", "library", "symbol", "measure",
                "calls"});
    parse_native_function(c, f, spec);
    if (!spec.native && !f["name"])
      throw c.err(f, "functions[].name", "is missing",
                  "each entry needs name: <Go symbol or glob>, native: <C/C++ name or glob>, or library: + symbol:");
    if (!spec.native) spec.pattern = str(c, f["name"], "name");
    if (f["threshold"]) spec.threshold = threshold(c, f["threshold"], spec.pattern + ".threshold");
    if (f["thresholds"]) spec.quantile_thresholds = quantile_map(c, f["thresholds"], spec.pattern + ".thresholds");
    if (f["optional"]) spec.optional = boolean(c, f["optional"], spec.pattern + ".optional");
    if (f["measure"]) spec.measure = one_of(c, f["measure"], spec.pattern + ".measure", {"auto", "probes", "samples"});
    if (f["calls"]) spec.calls = one_of(c, f["calls"], spec.pattern + ".calls", {"auto", "exact", "entry"});
    if (spec.native && (!spec.measure.empty() || !spec.calls.empty()))
      throw c.err(f, spec.pattern, "sets measure or calls on a native function",
                  "leave them out: native functions are measured by their probes");
    if (f["bucket_by"] && spec.native)
      throw c.err(f["bucket_by"], spec.pattern + ".bucket_by", "is for Go functions", "remove it from the native entry");
    if (f["bucket_by"]) {
      spec.bucket_by = parse_bucket_by(c, f["bucket_by"], spec.pattern + ".bucket_by");
      if (NamePattern::parse(spec.pattern).is_glob())
        throw c.err(f["bucket_by"], spec.pattern + ".bucket_by",
                    "is on a glob, whose functions have different arguments",
                    "put bucket_by on an entry with one exact function name");
    }
  } else {
    throw c.err(f, "functions[]", "must be a name or {name, threshold}", "");
  }
  if (spec.pattern.empty()) throw c.err(f, "functions[]", "is an empty name", "");
  return spec;
}

// The verdict settings: quantiles, thresholds, policies, the baseline file.
void parse_verdict(const Ctx& c, const YAML::Node& root, Config& cfg) {
  if (root["quantiles"]) {
    if (!root["quantiles"].IsSequence())
      throw c.err(root["quantiles"], "quantiles", "must be a list", "e.g. quantiles: [p50, p99]");
    cfg.quantiles.clear();
    for (const auto& q : root["quantiles"]) {
      std::string s = str(c, q, "quantiles[]");
      check_quantile(c, q, s);
      cfg.quantiles.push_back(s);
    }
    if (cfg.quantiles.empty()) throw c.err(root["quantiles"], "quantiles", "is empty", "e.g. [p50, p99]");
  }
  if (root["threshold"]) cfg.threshold = threshold(c, root["threshold"], "threshold");
  if (root["thresholds"]) cfg.quantile_thresholds = quantile_map(c, root["thresholds"], "thresholds");
  if (root["calls_change"]) cfg.calls_change = threshold(c, root["calls_change"], "calls_change", false);
  if (root["fail_on_calls_change"]) cfg.fail_on_calls_change = boolean(c, root["fail_on_calls_change"], "fail_on_calls_change");
  if (root["fail_on_insufficient_data"])
    cfg.fail_on_insufficient = boolean(c, root["fail_on_insufficient_data"], "fail_on_insufficient_data");
  if (root["fail_on_suspect"]) cfg.fail_on_suspect = boolean(c, root["fail_on_suspect"], "fail_on_suspect");
  if (root["family"]) {
    cfg.family = str(c, root["family"], "family");
    // The words stats::parse_multiplicity takes (the runner does not depend on stats; the Config
    // tests check that every word here parses there).
    static const std::set<std::string> kFamilies = {"holm", "p50-first", "fdr", "bonferroni", "none"};
    if (!kFamilies.count(cfg.family))
      throw c.err(root["family"], "family", "is '" + cfg.family + "', not a known correction",
                  "write holm (the default), p50-first, fdr, bonferroni or none");
  }
  if (const YAML::Node n = root["speed_normalization"]) {
    const std::optional<bool> b =
        bool_or(c, n, "speed_normalization", "fitted",
                "write speed_normalization: fitted (each function's power of the speed factor fitted, gate ab), "
                "true or false");
    cfg.speed_normalization = b.value_or(true);
    cfg.fit_speed_elasticity = !b.has_value();
  }
  if (const YAML::Node n = root["exclude_preemption"])
    cfg.exclude_preemption = bool_or(c, n, "exclude_preemption", "auto",
                                     "write exclude_preemption: true (time calls minus other processes' preemption), "
                                     "false (wall time) or auto (gate's default; gate check follows its baseline)");
  if (root["pairing"]) {
    cfg.pairing = str(c, root["pairing"], "pairing");
    if (cfg.pairing != "auto" && cfg.pairing != "off")
      throw c.err(root["pairing"], "pairing", "is \"" + cfg.pairing + "\"", "use auto (pair gate ab's runs) or off");
  }
  if (root["benchmarks"]) {
    cfg.benchmarks = str(c, root["benchmarks"], "benchmarks");
    if (cfg.benchmarks != "go" && cfg.benchmarks != "none")
      throw c.err(root["benchmarks"], "benchmarks", "is \"" + cfg.benchmarks + "\"",
                  "use go (read `go test -bench` results from the workload's stdout) or none");
    if (cfg.benchmarks == "go" && cfg.service)
      throw c.err(root["benchmarks"], "benchmarks", "is set with service:, whose load's output is not read",
                  "run the benchmarks as workload: (a `go test -c` binary with -test.bench)");
  }
  if (root["benchmark_cpu"]) {
    cfg.benchmark_cpu = boolean(c, root["benchmark_cpu"], "benchmark_cpu");
    if (cfg.benchmark_cpu && cfg.benchmarks != "go")
      throw c.err(root["benchmark_cpu"], "benchmark_cpu", "is true, and the config does not read benchmarks",
                  "set benchmarks: go (a `go test -c` workload with -test.bench), or remove benchmark_cpu");
  }
  if (root["baseline"]) cfg.baseline = absolute(cfg.dir, str(c, root["baseline"], "baseline"));
}

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

}  // namespace

Config load_config(const std::string& path) {
  const auto text = read_file(path);
  if (!text) {
    throw Error::make(path, std::string("cannot be read (") + std::strerror(errno) + ")",
                      "pass the path of your gate.yaml with --config (see examples/shop/gate.yaml)");
  }
  return parse_config(*text, path);
}

Config parse_config(const std::string& text, const std::string& path, const std::string& label) {
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
    parse_workload(c, root, cfg);
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
