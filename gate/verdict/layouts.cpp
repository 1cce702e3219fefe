// The comparison widened for layout variance and re-decided (its sentences are written when it is rendered).
#include "verdict/layouts.hpp"

#include "stats/layout_variance.hpp"
#include "verdict/benchmark_family.hpp"

namespace gate::verdict {

stats::Comparison judge_with_layouts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                     const ResultFile& base_meta, const ResultFile& head_meta,
                                     const stats::CompareOptions& o, Annotations* notes) {
  stats::Comparison c = compare_with_benchmarks(base_runs, head_runs, base_meta, head_meta, o);
  std::vector<RunResult> base, head;  // the pairs the tests compared: a pilot pair left out (RunResult::pilot)
  const bool pilots = without_pilot_pairs(base_runs, head_runs, base, head);
  const auto shares = stats::widen_for_layouts(c, pilots ? base : base_runs, pilots ? head : head_runs, o);
  if (notes)
    for (auto& [name, f] : notes->functions) f.layout_share.reset();
  if (shares.empty()) return c;
  redecide(c, o);
  if (notes)
    for (const auto& [name, share] : shares) notes->functions[name].layout_share = share;
  return c;
}

}  // namespace gate::verdict
