// Code layout as a level of replication (gate ab with several -randlayout builds per side): how
// much of a function's per-unit variance comes from the layout variant a unit ran, and the
// interval widened for it. Pure logic, no I/O.
//
// Why: two builds of one source place functions differently, and a function's speed can follow
// its placement (up to ~20% measured on the shop example with Go 1.19). Units spread over K
// layouts per side sample that; but units of one layout share its placement, so they are
// clustered, and an interval that treats them as independent is too narrow by the between-layout
// part. One-way random-effects ANOVA over the units' values (clusters = layouts) estimates the
// between-layout component sigma_b^2 = max(0, (MSB - MSW) / n0); the mean over K layouts carries
// sigma_b^2 / K of it on top of the interval's own variance, and the degrees of freedom combine
// the two by Satterthwaite (K - 1 for the layout part).
#pragma once

#include <vector>

#include "stats/compare.hpp"

namespace gate::stats {

struct LayoutComponents {
  int layouts = 0;     // layouts with at least one unit
  int units = 0;
  double within = 0;   // mean square within layouts (log^2 units)
  double between = 0;  // between-layout variance component, >= 0
  // Estimable: two layouts or more, and more units than layouts.
  bool estimable() const { return layouts >= 2 && units > layouts; }
  // between / (between + within), 0..1 (0 when not estimable).
  double share() const;
};

// values[i] is unit i's value (a log ratio or log time), layout[i] the layout it ran (any ints;
// a negative one: no layout, the unit is skipped). NaN values are skipped.
LayoutComponents layout_components(const std::vector<double>& values, const std::vector<int>& layout);

struct LayoutWidening {
  double log_scale = 0;  // the widened standard error of the log ratio
  double df = 0;         // Satterthwaite's degrees of freedom
  double factor = 1;     // log_scale after / before
};
// An interval of standard error log_scale and df degrees of freedom, with the between-layout
// component added: se^2 + between * weight, weight being sum(n_g^2) / N^2 of the units per layout
// (0: balanced, 1 / layouts), df combined with layouts - 1 (Satterthwaite). Unchanged when the
// components are not estimable or the between part is 0.
LayoutWidening widen_for_layouts(double log_scale, double df, const LayoutComponents& c, double weight = 0);

// A test's interval widened in place (log_scale, df, noise, raw_ci_*, the one-sided p-values and
// p_unchanged; qc.layouts set). The family must be decided again afterwards.
void widen_test(QuantileComparison& qc, const LayoutComponents& c, const CompareOptions& o, double weight = 0);

// Per function and quantile of `c` (made from these runs, paired by index): the components of the
// units' log head/base ratios of the quantile, each run's speed factor taken out when the
// comparison was speed-normalized, clustered by the pair's layouts (base layout, head layout);
// every tested quantile widened. Returns per function the largest share over its quantiles
// (absent: not estimable). Does nothing and returns nothing when the runs carry no layouts.
std::vector<std::pair<std::string, double>> widen_for_layouts(Comparison& c, const std::vector<RunResult>& base_runs,
                                                              const std::vector<RunResult>& head_runs,
                                                              const CompareOptions& o);

}  // namespace gate::stats
