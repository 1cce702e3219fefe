// A shard's plan and its partial (sharding/shard_plan.hpp).
#include "sharding/shard_plan.hpp"

#include "common/error.hpp"
#include "sharding/shards.hpp"

namespace gate::sharding {

std::optional<ShardPlan> plan_shard(const std::string& shard, const std::string& partial_out, int profile_hz,
                                    runner::Config& cfg, runner::MeasureOptions& mo, int max_runs, uint64_t seed,
                                    const std::vector<std::string>& base_binaries,
                                    const std::vector<std::string>& head_binaries) {
  if (shard.empty()) {
    if (!partial_out.empty())
      throw Error::make("--partial-out", "is only written by a shard", "add --shard K/N, or drop --partial-out");
    return std::nullopt;
  }
  ShardPlan p;
  p.spec = parse_shard(shard);
  if (partial_out.empty())
    throw Error::make("--shard " + shard, "has nowhere to write its pairs",
                      "add --partial-out FILE (the merge job downloads it)");
  if (profile_hz > 0)
    throw Error::make("--profile with --shard " + shard, "a shard writes pairs, not a report with profiles",
                      "profile in a gate ab of its own, or leave --profile (and profile:) out of the shards");
  const int total = max_runs > 0 ? max_runs : (mo.runs > 0 ? mo.runs : cfg.runs);
  p.pairs = shard_pairs(total, p.spec);
  mo.runs = cfg.runs = cfg.max_runs = p.pairs;
  cfg.suspect_max_runs = 0;  // runs == max_runs: runner::suspect_max_runs gives runs, no extension
  p.seed = seed;
  p.shard_seed = shard_seed(seed, p.spec);
  p.base_binaries = shard_layouts(base_binaries, p.spec);
  p.head_binaries = shard_layouts(head_binaries, p.spec);
  return p;
}

Partial finish_shard(const ShardPlan& plan, verdict::AbJudged& j, const runner::Config& cfg,
                     const std::string& partial_out, const std::string& runner, const std::string& runner_label) {
  verdict::throw_failure(j);
  Partial p = partial_of(j, plan.spec, plan.seed, plan.shard_seed, plan.base_binaries.size(),
                         plan.head_binaries.size(), cfg, runner, runner_label);
  save_partial(partial_out, p);
  return p;
}

}  // namespace gate::sharding
