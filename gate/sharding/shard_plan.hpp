// What a shard of gate ab measures (issue 44), from the comparison's settings: its pairs (a fixed
// number: no measure-until-decided, no extension), its seeds and its layout order; and, once it
// measured, the partial it writes instead of a verdict (gate merge decides: sharding/shards.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/partial.hpp"
#include "runner/config.hpp"
#include "runner/measure.hpp"
#include "verdict/judge.hpp"

namespace gate::sharding {

struct ShardPlan {
  ShardSpec spec;
  uint64_t seed = 0;        // the comparison's
  uint64_t shard_seed = 0;  // this shard's run order
  int pairs = 0;
  std::vector<std::string> base_binaries, head_binaries;  // rotated (shard_layouts)
};

// nullopt when `shard` ("K/N", gate ab's --shard) is empty. Otherwise fixes cfg and mo to the shard's
// pairs (its share of max_runs when given, else of the runs) and returns the plan. Throws
// gate::Error (exit 2) for a bad shard, a missing partial_out, a partial_out without a shard, or
// profiling (a shard writes no report).
std::optional<ShardPlan> plan_shard(const std::string& shard, const std::string& partial_out, int profile_hz,
                                    runner::Config& cfg, runner::MeasureOptions& mo, int max_runs, uint64_t seed,
                                    const std::vector<std::string>& base_binaries,
                                    const std::vector<std::string>& head_binaries);

// After the shard measured: a failed run is its error (exit 3); else its partial, written to
// partial_out atomically, and returned. The runner is named by the caller (history::machine_of).
Partial finish_shard(const ShardPlan& plan, verdict::AbJudged& j, const runner::Config& cfg,
                     const std::string& partial_out, const std::string& runner, const std::string& runner_label);

}  // namespace gate::sharding
