// gate.yaml's functions: each entry a Go function or glob (name:), or a C or C++ function (native:,
// or library: with symbol:), with its own thresholds, instrument and bucket_by (latency by
// argument). The rules across an entry's keys are config_check.cpp's.
#include "runner/config_parse.hpp"

#include <cstdint>
#include <exception>

namespace gate::runner::config_parse {

namespace {

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

}  // namespace

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
    // A native entry's bucket_by is refused unread, by check_function.
    if (f["bucket_by"] && !spec.native)
      spec.bucket_by = parse_bucket_by(c, f["bucket_by"], spec.pattern + ".bucket_by");
    check_function(c, f, spec);
  } else {
    throw c.err(f, "functions[]", "must be a name or {name, threshold}", "");
  }
  if (spec.pattern.empty()) throw c.err(f, "functions[]", "is an empty name", "");
  return spec;
}

}  // namespace gate::runner::config_parse
