// --shard and --partial-out of gate ab: parsing, the shard's plan, writing the partial.
#include "cli/shard_flags.hpp"

#include <cstdio>

#include "history/store.hpp"

namespace gate::cli {

void add_shard_flags(CLI::App& app, ShardFlags& f) {
  app.add_option("--shard", f.shard,
                 "K/N: measure shard K of N of this comparison on this runner and write its pairs to "
                 "--partial-out; gate merge judges the shards together. A shard measures a fixed number of pairs, "
                 "its share of --max-runs when given, else of the runs (no measuring until decided); its run "
                 "order's seed comes from --seed and K");
  app.add_option("--partial-out", f.partial_out, "With --shard: write the shard's partial result (JSON) here");
}

std::optional<ShardPlan> plan_shard(const ShardFlags& f, int profile_hz, runner::Config& cfg,
                                    runner::MeasureOptions& mo, int max_runs, uint64_t seed,
                                    const std::vector<std::string>& base_binaries,
                                    const std::vector<std::string>& head_binaries) {
  if (f.shard.empty()) {
    if (!f.partial_out.empty())
      throw Error::make("--partial-out", "is only written by a shard", "add --shard K/N, or drop --partial-out");
    return std::nullopt;
  }
  ShardPlan p;
  p.spec = verdict::parse_shard(f.shard);
  if (f.partial_out.empty())
    throw Error::make("--shard " + f.shard, "has nowhere to write its pairs",
                      "add --partial-out FILE (the merge job downloads it)");
  if (profile_hz > 0)
    throw Error::make("--profile with --shard " + f.shard, "a shard writes pairs, not a report with profiles",
                      "profile in a gate ab of its own, or leave --profile (and profile:) out of the shards");
  const int total = max_runs > 0 ? max_runs : (mo.runs > 0 ? mo.runs : cfg.runs);
  p.pairs = verdict::shard_pairs(total, p.spec);
  mo.runs = cfg.runs = cfg.max_runs = p.pairs;
  cfg.suspect_max_runs = 0;  // runs == max_runs: runner::suspect_max_runs gives runs, no extension
  p.seed = seed;
  p.shard_seed = verdict::shard_seed(seed, p.spec);
  p.base_binaries = verdict::shard_layouts(base_binaries, p.spec);
  p.head_binaries = verdict::shard_layouts(head_binaries, p.spec);
  return p;
}

int finish_shard(const ShardPlan& plan, verdict::AbJudged& j, const runner::Config& cfg, const ShardFlags& f) {
  verdict::throw_failure(j);
  const history::Machine machine = history::machine_of(j.head.result.context);
  const Partial p = verdict::partial_of(j, plan.spec, plan.seed, plan.shard_seed, plan.base_binaries.size(),
                                                 plan.head_binaries.size(), cfg, machine.id, machine.label());
  save_partial(f.partial_out, p);
  std::printf("gate: shard %d/%d measured %d pairs on %s (%s); wrote %s: gate merge decides\n", p.shard.index,
              p.shard.count, p.pairs(), p.hostname.c_str(), p.runner.c_str(), f.partial_out.c_str());
  return 0;
}

}  // namespace gate::cli
