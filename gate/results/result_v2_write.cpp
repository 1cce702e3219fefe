// Schema 2 of the result format, written: a run's functions as columns over the file's table of
// function names, each run on one line (result_json.hpp describes the columns).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "common/files.hpp"
#include "results/result.hpp"
#include "results/result_json.hpp"

namespace gate {

namespace result_json {

namespace {

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

json run_json(const RunResult& r, const std::unordered_map<std::string_view, size_t>& table) {
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
  if (r.throttled_periods) {  // optional: absent means the cgroup's quota held nothing back (or none)
    j["cpu_periods"] = r.cpu_periods;
    j["throttled_periods"] = r.throttled_periods;
    j["throttled_s"] = r.throttled_s;
  }
  if (r.executions != 1) j["executions"] = r.executions;  // optional: absent means one execution
  if (r.layout >= 0) j["layout"] = r.layout;
  if (r.pilot) j["pilot"] = true;
  if (r.sample_period_ns) {
    j["sample_period_ns"] = r.sample_period_ns;
    const SamplerCounts& c = r.sampler;
    j["sampler"] = {{"samples", c.samples},         {"no_stack", c.no_stack},   {"not_to_root", c.not_to_root},
                    {"no_caller", c.no_caller},     {"fp_differed", c.fp_differed}};
  }
  if (r.clean_executions > 0) {  // optional: absent means the benchmark figures (if any) came from probed executions
    j["clean_executions"] = r.clean_executions;
    j["clean_duration_s"] = r.clean_duration_s;
    j["probed_executions"] = r.probed_executions;
  }
  if (r.sampled_executions > 0) {  // optional: absent means the samples came from the probed executions
    j["sampled_executions"] = r.sampled_executions;
    j["sampled_duration_s"] = r.sampled_duration_s;
    if (r.sampled_cpu_s >= 0) j["sampled_cpu_s"] = r.sampled_cpu_s;  // optional: absent means not known
  }
  if (r.trial_executions > 0) j["trial_executions"] = r.trial_executions;  // optional: absent means none
  if (r.cpu_s >= 0) j["cpu_s"] = r.cpu_s;  // optional: absent means not known
  if (r.trial_cpu_s >= 0) j["trial_cpu_s"] = r.trial_cpu_s;
  if (!r.benchmarks.empty() || !r.benchmark_warnings.empty()) j["benchmarks"] = benchmarks_json(r);
  return j;
}

}  // namespace

}  // namespace result_json

std::string result_to_json_text(const ResultFile& r, int indent) {
  using namespace result_json;
  json fns = json::array();
  for (const auto& f : r.functions) fns.push_back(function_info_json(f));
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
         {"context", context_json(r.context)},
         {"functions", fns},
         {"run_functions", table},
         {"extra", r.extra}};
  // Everything but the runs is indented for people; each run is one compact line (its columns
  // would otherwise take a line per number).
  std::string text = j.dump(indent);
  std::string runs = "\"runs\": [";
  for (size_t i = 0; i < r.runs.size(); ++i) {
    runs += (i ? ",\n  " : "\n  ");
    runs += run_json(r.runs[i], index).dump();
  }
  runs += r.runs.empty() ? "]" : "\n ]";
  const size_t close = text.rfind('}');
  const bool pretty = indent >= 0;
  text.insert(close, (pretty ? ",\n " : ",") + runs + (pretty ? "\n" : ""));
  return text + "\n";
}

void save_result_file(const std::string& path, const ResultFile& r) {
  write_file_atomically(path, result_to_json_text(r));
}

}  // namespace gate
