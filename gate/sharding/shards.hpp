// One gate ab comparison split over a CI matrix (issue 44): `gate ab --shard K/N` measures shard K's
// share of the pairs and writes them, with what makes shards comparable, as a partial result;
// `gate merge` refuses partials that do not belong together and judges all their pairs at once.
// Pure (no root, no kernel): the shard's plan, the merge; the partial's format and file are
// results/partial.* (ShardSpec, Partial).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/annotations.hpp"
#include "results/partial.hpp"
#include "results/result.hpp"
#include "runner/config.hpp"
#include "stats/compare.hpp"
#include "verdict/judge.hpp"

namespace gate::sharding {

// "K/N" with 1 <= K <= N. Throws gate::Error (exit 2) naming the text.
ShardSpec parse_shard(const std::string& text);
// The shard's run-order seed: mixed from the comparison's seed and K, so that shards run different
// orders and the same command line gives the same orders again.
uint64_t shard_seed(uint64_t seed, const ShardSpec& s);
// Shard K's share of `total` pairs: total / N, the first total % N shards one more. Throws
// gate::Error (exit 2) when a shard would get none.
int shard_pairs(int total, const ShardSpec& s);
// The shard's layout variants in the order it measures them: rotated by K - 1, so that shards that
// measure few units each still start on different layouts. unrotate_layouts maps the runs' layout
// numbers back to the order given.
std::vector<std::string> shard_layouts(const std::vector<std::string>& binaries, const ShardSpec& s);
void unrotate_layouts(ResultFile& r, size_t layouts, const ShardSpec& s);

// The partial of a shard whose gate ab measured j (its results are moved out): the shard, the seeds,
// the config hash, the build ids and executions per unit, the runs' layouts back in the
// comparison's order (unrotate_layouts over base_layouts / head_layouts variants). The runner is
// named by the caller (history::machine_of, which verdict/ does not include).
Partial partial_of(verdict::AbJudged& j, const ShardSpec& shard, uint64_t seed, uint64_t shard_seed, size_t base_layouts,
                   size_t head_layouts, const runner::Config& cfg, const std::string& runner,
                   const std::string& runner_label);

// Throws gate::Error (exit 2) naming the partial and the difference when the partials are not one
// comparison: another config (or not `cfg`'s), other binaries, another shard count, a shard index
// twice or missing, a partial result, unpaired runs.
void require_one_comparison(const std::vector<Partial>& parts, const std::vector<std::string>& paths,
                            const runner::Config& cfg);

// Per shard: how many pairs it gave, how noisy its runner was and how much its pairs weighed.
struct ShardFigures {
  int index = 0;
  std::string runner_label, hostname;
  int pairs = 0;
  // Median over functions of the log-sd of one pair's head/base p50 on this shard alone (0.05: ~5%
  // a pair); 0 when it could not be estimated (fewer than 2 pairs).
  double noise = 0;
  // Median over the tests of this shard's share of the stratified estimate (the shares of all
  // shards sum to ~1); a shard pooled with others gets its stratum's share split by pairs.
  double weight = 0;
  // The shards whose pairs its noise was estimated with: itself alone, or, when it had fewer than
  // kMinOwnPairs pairs, the stratum it was pooled into (ascending indexes).
  std::vector<int> stratum;
};

// A shard needs this many pairs for a noise model of its own; fewer: pooled with the other small
// shards (and, if still too few, with the smallest shard that has enough).
inline constexpr int kMinOwnPairs = 3;

// Shards grouped into strata, each at least kMinOwnPairs pairs (when the whole has that many):
// indexes into `pairs` (shard i gave pairs[i]). Pure, for the merge and its tests.
std::vector<std::vector<size_t>> shard_strata(const std::vector<int>& pairs);

// One test's estimate from strata (shards) of paired log ratios: inverse-variance weights
// (Graybill-Deal), its variance inflated for the weights being estimated (Meier 1953), degrees of
// freedom by Welch-Satterthwaite. Inputs per stratum: log_center, log_scale (its standard error),
// df. Shares: each stratum's weight / the sum.
struct StratifiedEstimate {
  double log_center = 0, log_scale = 0, df = 0;
  std::vector<double> shares;
};
StratifiedEstimate combine_strata(const std::vector<double>& centers, const std::vector<double>& scales,
                                  const std::vector<double>& dfs);

struct Merged {
  ResultFile base, head;  // every shard's runs, shard after shard, renumbered: pair i is base.runs[i], head.runs[i]
  stats::Comparison comparison;
  Annotations notes;
  std::vector<ShardFigures> shards;  // by index
  int strata = 1;           // noise models: 1 is gate ab's own comparison of all pairs
  int pooled_tests = 0;     // tests a stratum could not estimate on its own: judged on all pairs pooled
};
// The whole comparison from its shards (issue 44). A pair's head/base ratio is taken within its
// shard, so each runner's speed cancels in its own pairs; the speed factor is taken out run by run.
// The runner is a block: each test's log ratio is estimated per shard (stratum) from its own pairs
// and the shards combined by combine_strata, so a noisy runner weighs less instead of widening every
// interval. One stratum (one shard, or shards too small for their own noise): exactly gate ab's
// judgement of all pairs (verdict::judge_with_layouts, one look). Then layout widening, the family's
// correction, TOST and the exit code as gate ab's. Calls require_one_comparison.
Merged merge_shards(const runner::Config& cfg, std::vector<Partial> parts, const std::vector<std::string>& paths);

}  // namespace gate::sharding
