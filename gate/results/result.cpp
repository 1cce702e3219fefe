// JSON serialization of ResultFile (schema "gate.result", versioned) and atomic file writes:
// a result or baseline is either wholly written or the old file is left as it was.
#include "results/result.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <sstream>
#include <string_view>
#include <unordered_map>

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

// Every timed call is in the histogram. A function whose calls were counted and not timed (`calls:
// entry`, or its probes removed after gate ab's first pair: fixed_calls_per_execution) has calls
// and an empty histogram.
bool histogram_agrees(const FunctionRun& f) { return f.histogram.count() == f.calls || f.histogram.count() == 0; }

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

// Written only when the run has benchmark output, so results without it keep their exact form.
json benchmarks_json(const RunResult& r) {
  json results = json::array();
  for (const auto& b : r.benchmarks) {
    json metrics = json::array();
    for (const auto& [unit, value] : b.metrics) metrics.push_back({{"unit", unit}, {"value", value}});
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
    for (const auto& m : b.at("metrics")) br.metrics.emplace_back(m.at("unit").get<std::string>(), m.at("value").get<double>());
    r.benchmarks.push_back(std::move(br));
  }
}

// Schema 1 (read only): each run lists one object per function. Kept so that baselines recorded
// by earlier versions still load.
RunResult run_from_v1_header(const json& j) {
  RunResult r;
  r.index = j.at("index").get<int>();
  r.variant = j.value("variant", "");
  r.exit_code = j.value("exit_code", 0);
  r.duration_s = j.value("duration_s", 0.0);
  r.started_at = j.value("started_at", "");
  return r;
}

RunResult run_from_v1(const json& j) {
  RunResult r = run_from_v1_header(j);
  for (const auto& f : j.at("functions")) r.functions.push_back(function_run_from(f));
  if (j.contains("benchmarks")) benchmarks_from(j.at("benchmarks"), r);
  return r;
}

// Schema 2 stores a run's functions as columns over the file's table of function names
// ("run_functions"): a function that no call reached takes no space, and a 10,000-function
// result parses without building an object per function and run (issue 14: the object form of
// schema 1 made a 20-run file 94 MiB and `gate compare` on it took 19 s).
// Per run: "id" (indexes into the table of the functions with any non-zero figure), one column per
// counter (omitted when all zero), "buckets" (how many non-empty histogram buckets each id has),
// "histogram" (those buckets of all ids, concatenated: bucket, count, bucket, count, ...), and
// "absent" (table indexes the run does not hold at all; usually omitted).
// A run measured with true time (issue 9) says "true_time": true and adds, per id, the true-time
// counters (kTrueColumns, omitted when all zero), "self_buckets" + "self_histogram" (the self-time
// histogram, laid out like the time histogram; "self_is_time" lists the positions whose self-time
// histogram equals the time histogram, as a call without traced children's does, and which store
// 0 buckets of their own), "callers" (how many caller edges each id has) and "caller_edges" (those
// edges of all ids, concatenated: caller's table index, calls, sum_ns).
struct Column {
  const char* key;
  uint64_t FunctionRun::*field;
};
constexpr Column kColumns[] = {{"calls", &FunctionRun::calls},
                               {"sum_start_us", &FunctionRun::sum_start_us},
                               {"sum_start_ms2", &FunctionRun::sum_start_ms2},
                               {"sum_ns", &FunctionRun::sum_ns},
                               {"min_ns", &FunctionRun::min_ns},
                               {"max_ns", &FunctionRun::max_ns},
                               {"unmatched_entries", &FunctionRun::unmatched_entries},
                               {"unmatched_returns", &FunctionRun::unmatched_returns},
                               {"diverted_entries", &FunctionRun::diverted_entries},
                               {"dropped", &FunctionRun::dropped},
                               {"cpu_samples", &FunctionRun::cpu_samples},
                               {"probe_samples", &FunctionRun::probe_samples},
                               {"self_samples", &FunctionRun::self_samples},
                               {"fixed_calls_per_execution", &FunctionRun::fixed_calls_per_execution}};

struct TrueColumn {
  const char* key;
  uint64_t TrueTimeRun::*field;
};
constexpr TrueColumn kTrueColumns[] = {{"raw_sum_ns", &TrueTimeRun::raw_sum_ns},
                                       {"raw_min_ns", &TrueTimeRun::raw_min_ns},
                                       {"raw_max_ns", &TrueTimeRun::raw_max_ns},
                                       {"descendants", &TrueTimeRun::descendants},
                                       {"self_sum_ns", &TrueTimeRun::self_sum_ns},
                                       {"clamped", &TrueTimeRun::clamped},
                                       {"uncompensated", &TrueTimeRun::uncompensated}};

bool active(const FunctionRun& f) {
  for (const auto& c : kColumns)
    if (f.*c.field != 0) return true;
  for (const auto& c : kTrueColumns)
    if (f.true_time.*c.field != 0) return true;
  return !f.histogram.empty() || !f.true_time.self_histogram.empty() || !f.true_time.callers.empty();
}

bool has_true_time(const RunResult& r) {
  return std::any_of(r.functions.begin(), r.functions.end(), [](const FunctionRun& f) { return f.true_time.present; });
}

void append_buckets(const LatencyHistogram& h, json& nbuckets, json& flat) {
  nbuckets.push_back(h.buckets().size());
  for (const auto& [b, n] : h.buckets()) {
    flat.push_back(b);
    flat.push_back(n);
  }
}

// Adds `key` to fns: the field of every active function, unless all are zero (`always`: kept).
template <typename Get>
void add_column(json& fns, const char* key, const std::vector<const FunctionRun*>& act, Get get, bool always = false) {
  json col = json::array();
  bool any = false;
  for (const FunctionRun* f : act) {
    col.push_back(get(*f));
    any = any || get(*f) != 0;
  }
  if (any || always) fns[key] = std::move(col);
}

void add_true_time_columns(json& fns, const std::vector<const FunctionRun*>& act,
                           const std::unordered_map<std::string_view, size_t>& table) {
  for (const auto& c : kTrueColumns)
    add_column(fns, c.key, act, [&](const FunctionRun& f) { return f.true_time.*c.field; });
  json nself = json::array(), self = json::array(), ncallers = json::array(), edges = json::array();
  json self_is_time = json::array();
  for (const FunctionRun* f : act) {
    if (!f->histogram.empty() && f->true_time.self_histogram == f->histogram) {
      self_is_time.push_back(nself.size());
      nself.push_back(0);
    } else {
      append_buckets(f->true_time.self_histogram, nself, self);
    }
    ncallers.push_back(f->true_time.callers.size());
    for (const auto& c : f->true_time.callers) {
      edges.push_back(table.at(c.name));
      edges.push_back(c.calls);
      edges.push_back(c.sum_ns);
    }
  }
  fns["self_buckets"] = std::move(nself);
  fns["self_histogram"] = std::move(self);
  if (!self_is_time.empty()) fns["self_is_time"] = std::move(self_is_time);
  fns["callers"] = std::move(ncallers);
  fns["caller_edges"] = std::move(edges);
}

// The names of every run's functions, in order of first appearance.
std::vector<std::string> run_function_table(const ResultFile& r) {
  std::vector<std::string> names;
  std::unordered_map<std::string_view, size_t> seen;
  for (const auto& f : r.functions)
    if (seen.emplace(f.name, names.size()).second) names.push_back(f.name);
  for (const auto& run : r.runs)
    for (const auto& f : run.functions) {
      if (seen.emplace(f.name, names.size()).second) names.push_back(f.name);
      for (const auto& c : f.true_time.callers)  // normally declared too; "#id" when it was not
        if (seen.emplace(c.name, names.size()).second) names.push_back(c.name);
    }
  return names;
}

json to_json(const RunResult& r, const std::unordered_map<std::string_view, size_t>& table) {
  json ids = json::array(), nbuckets = json::array(), hist = json::array();
  std::vector<bool> present(table.size(), false);
  std::vector<const FunctionRun*> act;
  for (const auto& f : r.functions) {
    const size_t id = table.at(f.name);
    present[id] = true;
    if (!active(f)) continue;
    ids.push_back(id);
    act.push_back(&f);
    append_buckets(f.histogram, nbuckets, hist);
  }
  json fns{{"id", std::move(ids)}};
  for (const auto& c : kColumns)
    add_column(fns, c.key, act, [&](const FunctionRun& f) { return f.*c.field; }, c.field == &FunctionRun::calls);
  fns["buckets"] = std::move(nbuckets);
  fns["histogram"] = std::move(hist);
  const bool true_time = has_true_time(r);
  if (true_time) add_true_time_columns(fns, act, table);
  json absent = json::array();
  for (size_t i = 0; i < present.size(); ++i)
    if (!present[i]) absent.push_back(i);
  if (!absent.empty()) fns["absent"] = std::move(absent);
  json j{{"index", r.index},         {"variant", r.variant},
         {"exit_code", r.exit_code}, {"duration_s", r.duration_s},
         {"started_at", r.started_at}, {"functions", std::move(fns)}};
  if (true_time) j["true_time"] = true;
  if (r.lost_call_edges) j["lost_call_edges"] = r.lost_call_edges;
  if (r.straddled_calls) j["straddled_calls"] = r.straddled_calls;
  if (r.preempted_calls) j["preempted_calls"] = r.preempted_calls;
  if (r.thread_changed_calls) j["thread_changed_calls"] = r.thread_changed_calls;
  if (r.executions != 1) j["executions"] = r.executions;  // optional: absent means one execution
  if (r.layout >= 0) j["layout"] = r.layout;
  if (r.sample_period_ns) j["sample_period_ns"] = r.sample_period_ns;
  if (r.clean_executions > 0) {  // optional: absent means the benchmark figures (if any) came from probed executions
    j["clean_executions"] = r.clean_executions;
    j["clean_duration_s"] = r.clean_duration_s;
    j["probed_executions"] = r.probed_executions;
  }
  if (r.sampled_executions > 0) {  // optional: absent means the samples came from the probed executions
    j["sampled_executions"] = r.sampled_executions;
    j["sampled_duration_s"] = r.sampled_duration_s;
  }
  if (!r.benchmarks.empty() || !r.benchmark_warnings.empty()) j["benchmarks"] = benchmarks_json(r);
  return j;
}

// Reading schema 2 goes through simdjson: nlohmann's parser spent ~200 instructions per byte, which
// made loading a 10,000-function, 20-run result take seconds. simdjson reads the runs' columns;
// the small rest of the file is handed to nlohmann as before.
namespace sj = simdjson;

uint64_t number(sj::dom::element e, const char* what) {
  uint64_t v = 0;
  if (e.get(v)) throw Error(std::string("\"") + what + "\" holds a value that is not a non-negative integer");
  return v;
}

std::string text_of(sj::dom::object o, const char* key) {
  std::string_view v;
  return o[key].get(v) ? std::string() : std::string(v);
}
uint64_t number_of(sj::dom::object o, const char* key) {
  sj::dom::element e;
  return o[key].get(e) ? 0 : number(e, key);
}
std::vector<uint64_t> numbers_of(sj::dom::object o, const char* key) {
  std::vector<uint64_t> out;
  sj::dom::array a;
  if (!o[key].get(a))
    for (sj::dom::element e : a) out.push_back(number(e, key));
  return out;
}

// One entry of "functions" (read with simdjson too: 10,000 of them took nlohmann ~0.1 s).
FunctionInfo function_info_from(sj::dom::element e) {
  sj::dom::object j, entry;
  if (e.get(j)) throw Error("an entry of \"functions\" is not an object");
  FunctionInfo f;
  sj::dom::element id;
  if (j["id"].get(id)) throw Error("an entry of \"functions\" lacks \"id\"");
  f.id = static_cast<uint32_t>(number(id, "id"));
  std::string_view name;
  if (j["name"].get(name)) throw Error("an entry of \"functions\" has a \"name\" that is not a string");
  f.name = name;
  f.address = number_of(j, "address");
  f.size = number_of(j, "size");
  bool measurable = true;
  if (!j["measurable"].get(measurable)) f.measurable = measurable;
  f.not_measurable_reason = text_of(j, "not_measurable_reason");
  if (!j["entry"].get(entry)) {
    f.entry_placement = text_of(entry, "placement");
    f.entry_instruction = text_of(entry, "instruction");
    f.entry_cost_class = text_of(entry, "cost_class");
    f.entry_address = number_of(entry, "address");
  }
  f.return_addresses = numbers_of(j, "return_addresses");
  sj::dom::array inl;
  if (!j["inlined_at"].get(inl))
    for (sj::dom::element x : inl) {
      std::string_view v;
      if (!x.get(v)) f.inlined_at.emplace_back(v);
    }
  return f;
}

// A column of a schema-2 run as numbers, checked to have `n` values (n == SIZE_MAX: any length).
// Empty and `present` false when the run omits it.
std::vector<uint64_t> column(sj::dom::object fns, const char* key, size_t n, bool* present = nullptr) {
  std::vector<uint64_t> out;
  sj::dom::array arr;
  const auto err = fns[key].get(arr);
  if (present) *present = !err;
  if (err == sj::NO_SUCH_FIELD) return out;
  if (err) throw Error(std::string("a run's \"") + key + "\" is not a list of numbers");
  out.reserve(arr.size());
  for (sj::dom::element e : arr) out.push_back(number(e, key));
  if (n != SIZE_MAX && out.size() != n)
    throw Error(std::string("a run's \"") + key + "\" column has " + std::to_string(out.size()) +
                " values for " + std::to_string(n) + " functions");
  return out;
}

// A run's columns, read once per run.
struct Columns {
  std::vector<uint64_t> counter[std::size(kColumns)];
  std::vector<uint64_t> buckets, histogram;
  size_t next = 0;  // position in histogram of the next id's first bucket
  // True time (empty when the run has none).
  bool true_time = false;
  std::vector<uint64_t> true_counter[std::size(kTrueColumns)];
  std::vector<uint64_t> self_buckets, self_histogram, callers, caller_edges;
  std::vector<bool> self_is_time;  // by position
  size_t self_next = 0, edge_next = 0;
};

// Reads `nbuckets` (bucket, count) pairs of `flat` from `next` on into h.
void read_buckets(const std::vector<uint64_t>& flat, size_t& next, uint64_t nbuckets, LatencyHistogram& h,
                  const std::string& name, const char* column) {
  const size_t end = next + 2 * nbuckets;
  if (end > flat.size() || end < next)
    throw Error("function '" + name + "': the run's " + column + " column ends before its buckets do");
  h.reserve(h.buckets().size() + nbuckets);
  for (; next < end; next += 2) {
    if (flat[next] > UINT32_MAX) throw Error("function '" + name + "': a " + column + " bucket index is out of range");
    h.add_bucket(static_cast<uint32_t>(flat[next]), flat[next + 1]);
  }
}

void fill_true_time(TrueTimeRun& t, const LatencyHistogram& time, Columns& cols, size_t k,
                    const std::vector<FunctionName>& table, const std::string& name) {
  for (size_t c = 0; c < std::size(kTrueColumns); ++c)
    if (!cols.true_counter[c].empty()) t.*kTrueColumns[c].field = cols.true_counter[c][k];
  read_buckets(cols.self_histogram, cols.self_next, cols.self_buckets[k], t.self_histogram, name, "self_histogram");
  if (cols.self_is_time[k]) {
    if (!t.self_histogram.empty()) throw Error("function '" + name + "': self_is_time names it, but it stores a self-time histogram");
    t.self_histogram = time;
  }
  const size_t end = cols.edge_next + 3 * cols.callers[k];
  if (end > cols.caller_edges.size() || end < cols.edge_next)
    throw Error("function '" + name + "': the run's caller_edges column ends before its callers do");
  for (; cols.edge_next < end; cols.edge_next += 3) {
    const uint64_t caller = cols.caller_edges[cols.edge_next];
    if (caller >= table.size()) throw Error("function '" + name + "': a caller edge names function " + std::to_string(caller) + ", beyond the table");
    t.callers.push_back({table[caller], cols.caller_edges[cols.edge_next + 1], cols.caller_edges[cols.edge_next + 2]});
  }
}

void fill_active(FunctionRun& f, Columns& cols, size_t k, const std::vector<FunctionName>& table) {
  for (size_t c = 0; c < std::size(kColumns); ++c)
    if (!cols.counter[c].empty()) f.*kColumns[c].field = cols.counter[c][k];
  read_buckets(cols.histogram, cols.next, cols.buckets[k], f.histogram, f.name, "histogram");
  if (cols.true_time) fill_true_time(f.true_time, f.histogram, cols, k, table, f.name);
  if (!histogram_agrees(f)) {
    throw Error("function '" + f.name + "': histogram holds " + std::to_string(f.histogram.count()) +
                " calls but 'calls' says " + std::to_string(f.calls));
  }
}

RunResult run_header_v2(sj::dom::object j) {
  RunResult r;
  int64_t i = 0;
  if (j["index"].get(i)) throw Error("a run has no integer \"index\"");
  r.index = static_cast<int>(i);
  std::string_view sv;
  if (!j["variant"].get(sv)) r.variant = sv;
  if (!j["exit_code"].get(i)) r.exit_code = static_cast<int>(i);
  double d = 0;
  if (!j["duration_s"].get(d)) r.duration_s = d;
  if (!j["started_at"].get(sv)) r.started_at = sv;
  uint64_t n = 0;
  if (!j["lost_call_edges"].get(n)) r.lost_call_edges = n;
  if (!j["straddled_calls"].get(n)) r.straddled_calls = n;
  if (!j["preempted_calls"].get(n)) r.preempted_calls = n;
  if (!j["thread_changed_calls"].get(n)) r.thread_changed_calls = n;
  if (!j["executions"].get(i) && i >= 1) r.executions = static_cast<int>(i);
  if (!j["layout"].get(i) && i >= 0) r.layout = static_cast<int>(i);
  if (!j["sample_period_ns"].get(n)) r.sample_period_ns = n;
  if (!j["clean_executions"].get(i) && i >= 0) r.clean_executions = static_cast<int>(i);
  if (!j["clean_duration_s"].get(d)) r.clean_duration_s = d;
  r.probed_executions = r.clean_executions == 0 ? r.executions : 0;
  if (!j["probed_executions"].get(i) && i >= 0) r.probed_executions = static_cast<int>(i);
  if (!j["sampled_executions"].get(i) && i >= 0) r.sampled_executions = static_cast<int>(i);
  if (!j["sampled_duration_s"].get(d)) r.sampled_duration_s = d;
  return r;
}

// The true-time columns of a run that says "true_time": true; every function it holds gets them.
void read_true_time_columns(sj::dom::object fns, size_t n, Columns& cols, RunResult& r) {
  cols.true_time = true;
  for (size_t c = 0; c < std::size(kTrueColumns); ++c) cols.true_counter[c] = column(fns, kTrueColumns[c].key, n);
  bool have[4] = {};
  cols.self_buckets = column(fns, "self_buckets", n, &have[0]);
  cols.self_histogram = column(fns, "self_histogram", SIZE_MAX, &have[1]);
  cols.callers = column(fns, "callers", n, &have[2]);
  cols.caller_edges = column(fns, "caller_edges", SIZE_MAX, &have[3]);
  cols.self_is_time.assign(n, false);
  for (uint64_t k : column(fns, "self_is_time", SIZE_MAX)) {
    if (k >= n) throw Error("a run's \"self_is_time\" names position " + std::to_string(k) + " of " + std::to_string(n));
    cols.self_is_time[k] = true;
  }
  if (!have[0] || !have[1] || !have[2] || !have[3])
    throw Error("a run with \"true_time\" lacks its self_buckets, self_histogram, callers or caller_edges column");
  for (auto& f : r.functions) f.true_time.present = true;
}

RunResult run_from_v2(sj::dom::element e, const std::vector<FunctionName>& table) {
  sj::dom::object j, fns;
  if (e.get(j) || j["functions"].get(fns)) throw Error("a run has no \"functions\" columns");
  RunResult r = run_header_v2(j);
  const auto ids = column(fns, "id", SIZE_MAX);
  std::vector<bool> present(table.size(), true);
  for (uint64_t a : column(fns, "absent", SIZE_MAX)) {
    if (a >= table.size()) throw Error("a run's \"absent\" names function " + std::to_string(a) + ", beyond its table");
    present[a] = false;
  }
  std::vector<size_t> slot(table.size(), SIZE_MAX);  // table index -> position in r.functions
  r.functions.reserve(table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    if (!present[i]) continue;
    slot[i] = r.functions.size();
    r.functions.push_back(FunctionRun{.name = table[i]});
  }
  Columns cols;
  bool tt = false;
  if (!j["true_time"].get(tt) && tt) read_true_time_columns(fns, ids.size(), cols, r);
  bool have_calls = false, have_buckets = false, have_hist = false;
  for (size_t c = 0; c < std::size(kColumns); ++c)
    cols.counter[c] = column(fns, kColumns[c].key, ids.size(), c == 0 ? &have_calls : nullptr);
  cols.buckets = column(fns, "buckets", ids.size(), &have_buckets);
  cols.histogram = column(fns, "histogram", SIZE_MAX, &have_hist);
  if (!have_calls || !have_buckets || !have_hist)
    throw Error("a run lacks its \"calls\", \"buckets\" or \"histogram\" column");
  for (size_t k = 0; k < ids.size(); ++k) {
    const uint64_t id = ids[k];
    if (id >= table.size() || slot[id] == SIZE_MAX)
      throw Error("a run names function " + std::to_string(id) + ", which its table does not hold");
    fill_active(r.functions[slot[id]], cols, k, table);
  }
  if (cols.next != cols.histogram.size() || cols.self_next != cols.self_histogram.size() ||
      cols.edge_next != cols.caller_edges.size())
    throw Error("a run's histogram, self_histogram or caller_edges column holds more values than its counts account for");
  sj::dom::element benchmarks;
  if (!j["benchmarks"].get(benchmarks)) benchmarks_from(json::parse(sj::minify(benchmarks)), r);
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

}  // namespace

std::string result_to_json_text(const ResultFile& r, int indent) {
  json fns = json::array();
  for (const auto& f : r.functions) fns.push_back(to_json(f));
  const std::vector<std::string> table = run_function_table(r);
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < table.size(); ++i) index.emplace(table[i], i);
  json j{{"schema", kSchemaName},
         {"schema_version", r.schema_version},
         {"histogram", {{"unit", "ns"},
                        {"scheme", "log-linear: exact below 64 ns, then 32 sub-buckets per power of two"},
                        {"buckets", LatencyHistogram::bucket_count()},
                        {"entry", "bucket index, count (runs: \"buckets\" says how many per function)"}}},
         {"partial", r.partial},
         {"partial_reason", r.partial_reason},
         {"context", to_json(r.context)},
         {"functions", fns},
         {"run_functions", table},
         {"extra", r.extra}};
  // Everything but the runs is indented for people; each run is one compact line (its columns
  // would otherwise take a line per number).
  std::string text = j.dump(indent);
  std::string runs = "\"runs\": [";
  for (size_t i = 0; i < r.runs.size(); ++i) {
    runs += (i ? ",\n  " : "\n  ");
    runs += to_json(r.runs[i], index).dump();
  }
  runs += r.runs.empty() ? "]" : "\n ]";
  const size_t close = text.rfind('}');
  const bool pretty = indent >= 0;
  text.insert(close, (pretty ? ",\n " : ",") + runs + (pretty ? "\n" : ""));
  return text + "\n";
}

namespace {

// The document parsed by simdjson: everything but the runs as nlohmann JSON (small), the runs as
// simdjson's (large; `parser` owns them).
struct Document {
  sj::dom::parser parser;
  json head = json::object();
  sj::dom::element runs, functions;
  bool has_runs = false, has_functions = false;
};

// `text` must be followed by sj::SIMDJSON_PADDING readable bytes (a padded_string, or a std::string
// with that much spare capacity; simdjson copies anything else into a padded buffer of its own).
void parse_document(Document& d, sj::padded_string_view text, const std::string& origin) {
  sj::dom::element doc;
  sj::dom::object top;
  if (const auto err = d.parser.parse(text).get(doc)) {
    std::string detail = "simdjson: " + std::string(sj::error_message(err));
    try {
      const json where = json::parse(std::string_view(text));  // only to say where: simdjson says what, not where
      (void)where;
    } catch (const json::parse_error& e) {
      detail = e.what();
    }
    throw Error::make(origin, "is not valid JSON (" + detail + ")",
                      "the file is corrupt or truncated; re-create it with `gate run`/`gate record`");
  }
  if (doc.get(top)) return;  // not an object: reported as "not a gate result file"
  for (auto field : top) {
    if (field.key == "runs") {
      d.runs = field.value;
      d.has_runs = true;
    } else if (field.key == "functions") {
      d.functions = field.value;
      d.has_functions = true;
    } else {
      d.head[std::string(field.key)] = json::parse(sj::minify(field.value));
    }
  }
}

ResultFile result_from_document(Document& d, int version) {
  const json& j = d.head;
  ResultFile r;
  r.partial = j.value("partial", false);
  r.partial_reason = j.value("partial_reason", "");
  r.context = context_from(j.at("context"));
  sj::dom::array fns;
  if (!d.has_functions || d.functions.get(fns)) throw Error("it has no \"functions\" list");
  for (sj::dom::element f : fns) r.functions.push_back(function_info_from(f));
  r.schema_version = kResultSchemaVersion;  // upgraded on load; saved in the current schema
  sj::dom::array runs;
  if (!d.has_runs || d.runs.get(runs)) throw Error("it has no \"runs\" list");
  if (version == 1) {
    for (const auto& run : json::parse(sj::minify(d.runs))) r.runs.push_back(run_from_v1(run));
  } else {
    const auto names = j.at("run_functions").get<std::vector<std::string>>();
    const std::vector<FunctionName> table(names.begin(), names.end());  // every run and caller edge shares them
    for (sj::dom::element run : runs) r.runs.push_back(run_from_v2(run, table));
  }
  if (j.contains("extra")) r.extra = j.at("extra").get<std::map<std::string, std::string>>();
  return r;
}

// The file's bytes in simdjson's padded buffer; nullopt when it cannot be read (errno says why).
// A regular file is read straight into it: a stringstream and then simdjson's own padded copy were
// three copies of the file, whose page faults were ~0.1 s of `gate compare` on 2 x 23 MB. Pipes
// (`gate compare <(git show ...) head.json`) take the general path.
std::optional<sj::padded_string> read_padded(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    const auto text = read_file(path);
    if (!text) return std::nullopt;
    return sj::padded_string(*text);
  }
  sj::padded_string text(static_cast<size_t>(st.st_size));
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::read(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // n == 0: the file shrank while being read; what was read so far is what there is
      if (n < 0) {
        const int err = errno;
        ::close(fd);
        errno = err;
        return std::nullopt;
      }
      text = sj::padded_string(text.data(), off);
      break;
    }
    off += static_cast<size_t>(n);
  }
  ::close(fd);
  return text;
}

// `release`: the buffer `text` views, freed once parsed (the document holds copies of its strings):
// two 23 MB files load at once in `gate compare`, and this lowers the peak.
ResultFile result_from_padded_text(sj::padded_string_view text, const std::string& origin,
                                   sj::padded_string* release = nullptr) {
  Document d;
  parse_document(d, text, origin);
  if (release) *release = sj::padded_string();
  const json& j = d.head;
  if (j.value("schema", "") != kSchemaName) {
    throw Error::make(origin, "is not a gate result file (no \"schema\": \"gate.result\")",
                      "pass a file written by `gate run --out` or `gate record`");
  }
  const int version = j.value("schema_version", 0);
  if (version != kResultSchemaVersion && version != 1) {
    throw Error::make(origin, "has schema version " + std::to_string(version) +
                                  ", this gate reads versions 1 to " +
                                  std::to_string(kResultSchemaVersion),
                      "re-record it with this gate version");
  }
  try {
    return result_from_document(d, version);
  } catch (const json::exception& e) {
    throw Error::make(origin, std::string("has a malformed field (") + e.what() + ")",
                      "the file is corrupt or was edited by hand; re-create it");
  } catch (const Error& e) {
    throw Error::make(origin, e.what(), "the file is corrupt; re-create it");
  }
}

}  // namespace

ResultFile result_from_json_text(const std::string& text, const std::string& origin) {
  if (text.capacity() - text.size() >= sj::SIMDJSON_PADDING) return result_from_padded_text(sj::padded_string_view(text), origin);
  return result_from_padded_text(sj::padded_string(text), origin);
}

ResultFile load_result_file(const std::string& path) {
  auto text = read_padded(path);
  if (!text) {
    throw Error::make(path, std::string("cannot be read (") + std::strerror(errno) + ")",
                      "check the path; `gate record` creates baselines");
  }
  return result_from_padded_text(*text, path, &*text);
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
