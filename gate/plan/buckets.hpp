// Latency by argument: a function declared with bucket_by gets one extra statistics series per
// bucket of one argument's value, named "pkg.F{len(b)<1KiB}", that the kernel fills at each call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/args.hpp"
#include "probe/probe_engine.hpp"

namespace gate::plan {

// What a user writes: bucket_by: {arg: b, by: len, bounds: [1KiB, 4KiB, 16KiB]}.
struct BucketBy {
  std::string arg;                      // an argument `gate functions --args` lists (receivers count)
  std::string by = "len";               // len (string, slice, map, chan), value (integer, bool), nil (pointer)
  std::vector<int64_t> bounds;          // strictly increasing; none for nil
  std::vector<std::string> bound_texts; // as written ("1KiB"): the series names use them
};

struct BucketRequest {
  std::string function;  // exact Go symbol name
  BucketBy spec;
  std::string origin;    // where it was written, for errors: "gate.yaml:12"
};

// The names of the bucket series, in bucket order: "F{len(b)<1KiB}", "F{1KiB<=len(b)<4KiB}", ...,
// "F{len(b)>=16KiB}"; for nil: "F{p==nil}", "F{p!=nil}". Stable: baselines are keyed by them.
std::vector<std::string> bucket_names(const std::string& function, const BucketBy& spec);

// "1KiB" -> 1024, "-5" -> -5; KiB, MiB, GiB suffixes. Throws std::invalid_argument.
int64_t parse_bound(const std::string& text);

// The kernel's description of one bucketed function (id and first series id set by the caller),
// from its DWARF argument: throws gate::Error for an unknown argument (listing the real ones), a
// type that `by` cannot read (naming it), or an argument not in registers at the entry probe.
probe::ArgBucketSpec bucket_spec(const BucketRequest& req, const analysis::FunctionArgs& args,
                                 uint64_t probe_address);

}  // namespace gate::plan
