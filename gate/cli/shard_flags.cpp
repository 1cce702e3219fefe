// --shard and --partial-out of gate ab: the flags, and the line a shard prints once its partial is written.
#include "cli/shard_flags.hpp"

#include <cstdio>

#include "cli/flags.hpp"
#include "history/store.hpp"

namespace gate::cli {

namespace {

constexpr char kPartial[] = "a shard writes a partial, never a report with a reproduce line";

}  // namespace

void add_shard_flags(CLI::App& app, ShardFlags& f) {
  option(app, "--shard", Rerun::left_out(kPartial), f.shard,
         "K/N: measure shard K of N of this comparison on this runner and write its pairs to "
         "--partial-out; gate merge judges the shards together. A shard measures a fixed number of pairs, "
         "its share of --max-runs when given, else of the runs (no measuring until decided); its run "
         "order's seed comes from --seed and K");
  option(app, "--partial-out", Rerun::left_out(kPartial), f.partial_out,
         "With --shard: write the shard's partial result (JSON) here");
}

int finish_shard(const sharding::ShardPlan& plan, verdict::AbJudged& j, const runner::Config& cfg,
                 const ShardFlags& f) {
  const history::Machine machine = history::machine_of(j.head.result.context);
  const Partial p = sharding::finish_shard(plan, j, cfg, f.partial_out, machine.id, machine.label());
  std::printf("gate: shard %d/%d measured %d pairs on %s (%s); wrote %s: gate merge decides\n", p.shard.index,
              p.shard.count, p.pairs(), p.hostname.c_str(), p.runner.c_str(), f.partial_out.c_str());
  return 0;
}

}  // namespace gate::cli
