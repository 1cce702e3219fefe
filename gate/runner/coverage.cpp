// Zero-call checks: per run (nothing timed at all: a failed run) and per function over a
// measurement (never called: a warning, and for a baseline an error unless declared optional).
#include "runner/coverage.hpp"

#include <algorithm>

#include "common/name_pattern.hpp"
#include "common/error.hpp"
#include "common/format.hpp"

#include <span>
#include <string_view>
#include <unordered_map>

namespace gate::runner {

namespace {

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

std::vector<UncalledFunction> uncalled_functions(const ResultFile& r, const std::string& side) {
  std::vector<UncalledFunction> out;
  if (r.runs.empty()) return out;
  const auto counts = counts_by_name(r.runs);
  for (const auto& f : r.functions) {
    if (!f.measurable) continue;  // already reported as not measurable, by name
    const auto it = counts.find(f.name);
    if (it != counts.end() && it->second.calls > 0) continue;
    // plan/native_plan.cpp: C/C++ inlining is not read
    out.push_back({f.name, side, r.runs.size(), f.entry_placement.starts_with("native"), f.inlined_at});
  }
  return out;
}

bool is_optional(const Config& cfg, const std::string& name) {
  for (const auto& spec : cfg.functions) {
    if (spec.bucket_by) {  // a bucket series may well be empty: the workload picks the arguments
      const auto names = plan::bucket_names(spec.pattern, *spec.bucket_by);
      if (std::find(names.begin(), names.end(), name) != names.end()) return true;
    }
    if (!spec.optional) continue;
    const auto p = NamePattern::parse(spec.pattern);
    if (p.is_glob() ? p.matches(name) : p.literal() == name) return true;
  }
  return false;
}

}  // namespace gate::runner
