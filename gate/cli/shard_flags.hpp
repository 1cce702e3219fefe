// gate ab --shard K/N --partial-out FILE (issue 44): the flags; the shard's plan and its partial are
// sharding/shard_plan.hpp's, the merge gate merge's (sharding/shards.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "sharding/shard_plan.hpp"

namespace gate::cli {

struct ShardFlags {
  std::string shard;        // "K/N"; empty: not a shard
  std::string partial_out;  // where the partial goes
};
void add_shard_flags(CLI::App& app, ShardFlags& f);

// After the shard measured: its partial written (sharding::finish_shard), one line saying what was
// measured. Returns 0: a shard never decides.
int finish_shard(const sharding::ShardPlan& plan, verdict::AbJudged& j, const runner::Config& cfg,
                 const ShardFlags& f);

}  // namespace gate::cli
