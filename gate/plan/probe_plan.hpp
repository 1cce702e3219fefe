// The probe plan: one Go binary with its declared functions resolved (symbols), checked against
// inlining (DWARF), their probe sites placed (Capstone) and given cookies. Pure static analysis,
// no root: what `gate run` will attach, and why not where it cannot. May include analysis/, elf/
// and probe/'s SiteSpec type; the BPF layout only through plan/cookie.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analysis/probe_sites.hpp"
#include "plan/buckets.hpp"
#include "probe/probe_engine.hpp"
#include "results/result.hpp"

namespace gate::plan {

// A shared library some native function of the plan lives in (plan/native_plan.hpp).
struct NativeLibrary {
  std::string name;      // as declared: "libc.so.6", or a path
  std::string path;      // the file ld.so would load
  bool linked = false;   // the binary needs it (DT_NEEDED, directly or through another library)
  int watched = -1;      // not linked: its DT_INIT's load counter (engine library_loads), -1 = none
};

struct ProbePlan {
  std::string binary;  // absolute path
  std::string build_id;
  std::string go_version;
  std::string symbol_source;            // "symtab" or "gopclntab"
  std::vector<FunctionInfo> functions;  // every resolved function, then the bucket series; id = index
  std::vector<probe::SiteSpec> sites;   // entry + RET sites of the measurable ones
  std::vector<probe::ArgBucketSpec> arg_buckets;  // bucket_by: what the entry reads, per function
  std::vector<NativeLibrary> libraries;  // of the native functions, in the order first named
  std::vector<std::string> warnings;    // e.g. "main.f: not measurable: no RET instruction"
  // offsetof(runtime.g, stack.hi): from DWARF when the binary has it, else Go's layout (g.stack
  // is the first field, stack.hi its second word). Passed to the BPF program.
  uint32_t g_stack_hi_offset = 8;

  size_t measurable_count() const;
};

// Throws gate::Error: binary missing / not ELF / not Go / Go < 1.17 / not x86-64 / unknown
// function names / a function that exists only inlined / nothing measurable / a bucket_by that
// the binary's DWARF cannot serve (plan/buckets.hpp).
ProbePlan make_plan(const std::string& binary, const std::vector<std::string>& patterns,
                    analysis::EntryPolicy policy = analysis::EntryPolicy::kAuto,
                    const std::vector<BucketRequest>& buckets = {});

// `calls: entry` (issue 39): the Go functions `ids` keep their entry probe, now counting calls only,
// and lose their return probes (the single-stepped, costly ones): their time is sampled instead.
// Returns how many sites were removed. Native functions' sites are left as they are.
size_t count_calls_only(ProbePlan& plan, const std::set<uint32_t>& ids);

// calls: auto on a workload that makes the same calls every execution (issue 39): the Go functions
// `ids` lose every probe; their calls are taken from the first pair and their time is sampled.
// Returns how many sites were removed. Native functions' sites are left as they are.
size_t stop_probing(ProbePlan& plan, const std::set<uint32_t>& ids);

// "go1.21.13" -> {1, 21}; {0, 0} when unparsable.
std::pair<int, int> parse_go_version(const std::string& v);

}  // namespace gate::plan
