// The comparison widened for layout variance and re-decided (its sentences are written when it is rendered).
#include "verdict/layouts.hpp"

#include "stats/layouts.hpp"
#include "verdict/benchmark_family.hpp"

namespace gate::verdict {

stats::Comparison judge_with_layouts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                     const ResultFile& base_meta, const ResultFile& head_meta,
                                     const stats::CompareOptions& o, report::Annotations* notes) {
  std::vector<RunResult> base, head;
  if (without_pilot_pairs(base_runs, head_runs, base, head))
    return judge_with_layouts(base, head, base_meta, head_meta, o, notes);
  stats::Comparison c = compare_with_benchmarks(base_runs, head_runs, base_meta, head_meta, o);
  const auto shares = stats::widen_for_layouts(c, base_runs, head_runs, o);
  if (notes)
    for (auto& [name, f] : notes->functions) f.layout_share.reset();
  if (shares.empty()) return c;
  redecide(c, o);
  if (notes)
    for (const auto& [name, share] : shares) notes->functions[name].layout_share = share;
  return c;
}

}  // namespace gate::verdict
