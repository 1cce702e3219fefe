// Reading a result file: the document through simdjson, its functions and context, and its runs in
// schema 2's columns (schema 1's runs: result_v1_read.cpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <simdjson.h>
#include <string_view>

#include "common/error.hpp"
#include "common/files.hpp"
#include "results/result.hpp"
#include "results/result_json.hpp"

namespace gate {

namespace result_json {

namespace {

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
  if (!j["cpu_periods"].get(n)) r.cpu_periods = n;
  if (!j["throttled_periods"].get(n)) r.throttled_periods = n;
  if (!j["throttled_s"].get(d)) r.throttled_s = d;
  if (!j["executions"].get(i) && i >= 1) r.executions = static_cast<int>(i);
  if (!j["layout"].get(i) && i >= 0) r.layout = static_cast<int>(i);
  bool b = false;
  if (!j["pilot"].get(b)) r.pilot = b;
  if (!j["sample_period_ns"].get(n)) r.sample_period_ns = n;
  sj::dom::object sampler;
  if (!j["sampler"].get(sampler)) {
    for (auto [key, field] : {std::pair{"samples", &SamplerCounts::samples}, {"no_stack", &SamplerCounts::no_stack},
                              {"not_to_root", &SamplerCounts::not_to_root}, {"no_caller", &SamplerCounts::no_caller},
                              {"fp_differed", &SamplerCounts::fp_differed}})
      if (!sampler[key].get(n)) r.sampler.*field = n;
  }
  if (!j["clean_executions"].get(i) && i >= 0) r.clean_executions = static_cast<int>(i);
  if (!j["clean_duration_s"].get(d)) r.clean_duration_s = d;
  r.probed_executions = r.clean_executions == 0 ? r.executions : 0;
  if (!j["probed_executions"].get(i) && i >= 0) r.probed_executions = static_cast<int>(i);
  if (!j["sampled_executions"].get(i) && i >= 0) r.sampled_executions = static_cast<int>(i);
  if (!j["sampled_duration_s"].get(d)) r.sampled_duration_s = d;
  if (!j["sampled_cpu_s"].get(d) && d >= 0) r.sampled_cpu_s = d;
  if (!j["trial_executions"].get(i) && i >= 0) r.trial_executions = static_cast<int>(i);
  if (!j["cpu_s"].get(d) && d >= 0) r.cpu_s = d;
  if (!j["trial_cpu_s"].get(d) && d >= 0) r.trial_cpu_s = d;
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

}  // namespace result_json

ResultFile result_from_json_text(const std::string& text, const std::string& origin) {
  using namespace result_json;
  namespace sj = simdjson;
  if (text.capacity() - text.size() >= sj::SIMDJSON_PADDING) return result_from_padded_text(sj::padded_string_view(text), origin);
  return result_from_padded_text(sj::padded_string(text), origin);
}

ResultFile load_result_file(const std::string& path) {
  using namespace result_json;
  auto text = read_padded(path);
  if (!text) {
    throw Error::make(path, std::string("cannot be read (") + std::strerror(errno) + ")",
                      "check the path; `gate record` creates baselines");
  }
  return result_from_padded_text(*text, path, &*text);
}

}  // namespace gate
