// Zero-call checks: per run (nothing timed at all: a failed run) and per function over a
// measurement (never called: a warning, and for a baseline an error unless declared optional).
#include "runner/coverage.hpp"

#include <algorithm>

#include "analysis/functions.hpp"
#include "common/error.hpp"

#include <span>
#include <string_view>
#include <unordered_map>

namespace gate::runner {

namespace {

std::string plural(size_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// "a, b, c and 4 more": function lists in messages stay one readable line.
std::string name_list(const std::vector<const FunctionInfo*>& fns, size_t shown = 5) {
  std::string out;
  for (size_t i = 0; i < fns.size() && i < shown; ++i) out += (i ? ", " : "") + fns[i]->name;
  if (fns.size() > shown) out += " and " + std::to_string(fns.size() - shown) + " more";
  return out;
}

// Calls (and entries left open) per function name over the given runs: one pass over each run's
// functions. A linear RunResult::find per declared function was quadratic (10,000 functions x 20
// runs: 2e9 name compares).
struct Counts {
  uint64_t calls = 0, open_entries = 0;
};
std::unordered_map<std::string_view, Counts> counts_by_name(std::span<const RunResult> runs) {
  std::unordered_map<std::string_view, Counts> out;
  out.reserve(runs.empty() ? 0 : runs.front().functions.size());
  for (const auto& run : runs)
    for (const auto& f : run.functions) {
      Counts& c = out[f.name];
      c.calls += f.calls;
      c.open_entries += f.unmatched_entries;
    }
  return out;
}

}  // namespace

std::string inlining_status(const FunctionInfo& f) {
  if (f.entry_placement.starts_with("native"))  // plan/native_plan.cpp: C/C++ inlining is not read
    return "a native function: gate does not look for inlined copies of C/C++ code (a call the compiler inlined "
           "is not timed)";
  if (f.inlined_at.empty()) return "no inlined copies found";
  std::string sites;
  for (size_t i = 0; i < f.inlined_at.size() && i < 3; ++i) sites += (i ? "; " : "") + f.inlined_at[i];
  if (f.inlined_at.size() > 3) sites += "; ...";
  return "also inlined at " + plural(f.inlined_at.size(), "site") + " (" + sites +
         "): calls there are not timed";
}

void require_some_call(const RunResult& run, const std::vector<FunctionInfo>& fns, const std::string& label,
                       bool service) {
  std::vector<const FunctionInfo*> measurable, inlined;
  uint64_t calls = 0, entries = 0;
  const auto counts = counts_by_name({&run, 1});
  for (const auto& f : fns) {
    if (!f.measurable) continue;
    measurable.push_back(&f);
    if (!f.inlined_at.empty()) inlined.push_back(&f);
    if (const auto it = counts.find(f.name); it != counts.end()) {
      calls += it->second.calls;
      entries += it->second.open_entries;
    }
  }
  if (calls > 0 || measurable.empty()) return;
  std::string cause = "timed no call of any of the " + plural(measurable.size(), "declared function") + " (" +
                      name_list(measurable) + "): a run that measured nothing is a failed run";
  if (entries > 0) {
    cause += "\n  they were entered " + std::to_string(entries) +
             " times but never returned before the run ended: declare the functions that do the work, "
             "not one that runs for the whole run";
  }
  cause += "\n  likely causes:\n  - the workload never reached them (a load aimed at another port, a test "
           "-run filter that matches nothing, functions this workload does not use)";
  if (service) cause += "\n  - the service under load was not the process gate started";
  cause += "\n  - inlined everywhere: " +
           (inlined.empty() ? std::string("none of them has inlined copies in the binary's DWARF")
                            : name_list(inlined) + " (`gate functions BINARY` shows where)");
  throw Error::make(label, cause,
                    "run the workload by hand and check that it calls them; declare functions it does reach "
                    "(`gate functions BINARY --match GLOB`), or build with -gcflags=all=-l to stop inlining",
                    ExitCode::kMeasure);
}

std::vector<const FunctionInfo*> uncalled_functions(const ResultFile& r) {
  std::vector<const FunctionInfo*> out;
  if (r.runs.empty()) return out;
  const auto counts = counts_by_name(r.runs);
  for (const auto& f : r.functions) {
    if (!f.measurable) continue;  // already reported as not measurable, by name
    const auto it = counts.find(f.name);
    if (it == counts.end() || it->second.calls == 0) out.push_back(&f);
  }
  return out;
}

std::vector<std::string> uncalled_warnings(const ResultFile& r, const std::string& side) {
  std::vector<std::string> out;
  const std::string runs = r.runs.size() == 1 ? "the 1 run" : "any of the " + std::to_string(r.runs.size()) + " runs";
  for (const FunctionInfo* f : uncalled_functions(r))
    out.push_back(f->name + ": no calls in " + runs + (side.empty() ? "" : " of " + side) + "; " + inlining_status(*f));
  return out;
}

bool is_optional(const Config& cfg, const std::string& name) {
  for (const auto& spec : cfg.functions) {
    if (spec.bucket_by) {  // a bucket series may well be empty: the workload picks the arguments
      const auto names = plan::bucket_names(spec.pattern, *spec.bucket_by);
      if (std::find(names.begin(), names.end(), name) != names.end()) return true;
    }
    if (!spec.optional) continue;
    const auto p = analysis::NamePattern::parse(spec.pattern);
    if (p.is_glob() ? p.matches(name) : p.literal() == name) return true;
  }
  return false;
}

void require_calls_for_baseline(const ResultFile& r, const Config& cfg, const std::string& baseline_path) {
  std::vector<const FunctionInfo*> missing;
  for (const FunctionInfo* f : uncalled_functions(r))
    if (!is_optional(cfg, f->name)) missing.push_back(f);
  if (missing.empty()) return;
  std::string cause = "not written: " + plural(missing.size(), "declared function") + " had no calls in " +
                      plural(r.runs.size(), "run") + ", and a baseline without calls cannot guard them:";
  for (const FunctionInfo* f : missing) cause += "\n  - " + f->name + " (" + inlining_status(*f) + ")";
  throw Error::make("baseline " + baseline_path, cause,
                    "make the workload reach them, remove them from functions: in " + cfg.path +
                        ", or mark the entry optional (functions: [{name: " + missing.front()->name +
                        ", optional: true}])",
                    ExitCode::kMeasure);
}

}  // namespace gate::runner
