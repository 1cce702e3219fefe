// The traced call graph as folded stacks ("a;b;c 1234", one line per path: what flamegraph.pl,
// inferno, speedscope and Firefox's profiler open), built from a result's caller -> callee edges.
#pragma once

#include <string>

#include "results/result.hpp"

namespace gate::report {

// One line per traced call path, weighted by compensated self time in ns summed over the runs
// (runs of `side` only when it is "base" or "head"; "" takes every run). The kernel records edges
// (nearest traced caller -> callee), not whole stacks, so a function reached from several callers
// splits its children among them in proportion to its time under each (gprof's assumption), and
// a recursive call is folded into one frame below its first occurrence. Empty when no run has
// true time.
std::string render_folded(const ResultFile& r, const std::string& side = "");

}  // namespace gate::report
