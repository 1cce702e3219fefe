// For the stats tests that read what a comparison says: compare(), then explain::explain(), as
// verdict/ does. The values themselves (stats::Why, Finding, MethodFacts) are checked beside.
#pragma once

#include "explain/explain.hpp"
#include "stats/compare.hpp"

namespace gate::stats {

inline Comparison compare_explained(const std::vector<RunResult>& base, const std::vector<RunResult>& head,
                                    const ResultFile& base_meta, const ResultFile& head_meta,
                                    const CompareOptions& o) {
  Comparison c = compare(base, head, base_meta, head_meta, o);
  explain::explain(c, o);
  return c;
}

}  // namespace gate::stats
