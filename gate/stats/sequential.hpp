// Repeated looks at accumulating data: measure-until-decided compares after the first `first`
// units (pairs of runs, or runs a side) and again after every unit added, up to `last`. Testing
// each look at the nominal level inflates the false-alarm rate: a change exactly at the threshold,
// looked at from 10 to 30 pairs with a one-sided t test at 2.5% each time, is called a regression
// in ~8.7% of trials, not 2.5% (a simulation of that loop, 40,000 trials). A sequential p-value
// restores the level.
//
// The method (Armitage, McPherson & Rowe 1969; a Pocock-type constant boundary): under the null at
// the boundary the standardized statistics of the looks behave like those of a Gaussian random walk,
// Z_n = S_n / sqrt(n) for n = first..last. A look's one-sided p is turned into its normal deviate c
// and replaced by g(c) = P(max over the planned looks of Z_n >= c), computed by numerical
// integration of the walk's density over the looks. Rejecting when g(c) < alpha at any look keeps
// the chance of ever rejecting a null at alpha, for every alpha, so the sequential p-values can be
// fed to Holm like any others. Pure logic, no I/O.
#pragma once

#include <vector>

namespace gate::stats {

class SequentialLooks {
 public:
  // Looks after first, first + 1, ..., last units. last <= first: a single look (p unchanged).
  SequentialLooks(int first, int last);

  // The sequential p-value of a one-sided p-value observed at any of the planned looks: >= p,
  // <= 1, and p itself when there is one look.
  double adjust(double p) const;

  int first() const { return first_; }
  int last() const { return last_; }
  int looks() const { return last_ > first_ ? last_ - first_ + 1 : 1; }
  // The integration's work grows as looks x sqrt(last) (per grid deviate): a plan of hundreds of
  // looks would cost 100x a plan of 10..30. Plans past this many units use Bonferroni over the
  // looks (p x looks): always valid, more conservative than the walk (for 10..30 it would be 21x
  // against ~4x).
  static constexpr int kMaxIntegratedLast = 64;
  bool bonferroni() const { return bonferroni_; }

  // The per-look one-sided level whose sequential p-value is alpha: the boundary a look must pass
  // (for looks 10..30 and alpha 0.025 about 0.0063, i.e. z ~2.5). alpha itself for one look.
  double per_look_level(double alpha) const;

  // g(c): the probability that the walk's standardized statistic reaches c at one of the looks,
  // computed directly (not through the interpolation adjust() uses); for a Bonferroni plan its
  // bound looks x (1 - Phi(c)). Exposed for the tests.
  double crossing_probability(double c) const;

 private:
  int first_;
  int last_;
  bool bonferroni_;
  // log(g(c) / (1 - Phi(c))) at c = kGridStart + i * kGridStep: the inflation factor, which varies
  // slowly with c and is interpolated linearly.
  std::vector<double> log_inflation_;
};

// One SequentialLooks per plan, computed once per process (~0.1 s of integration) and shared.
const SequentialLooks& sequential_looks(int first, int last);

}  // namespace gate::stats
