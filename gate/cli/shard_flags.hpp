// gate ab --shard K/N --partial-out FILE (issue 44): the shard's plan from the comparison's flags,
// and the partial it writes instead of a verdict (gate merge decides; verdict/shards.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "runner/config.hpp"
#include "verdict/judge.hpp"
#include "verdict/shards.hpp"

namespace gate::cli {

struct ShardFlags {
  std::string shard;        // "K/N"; empty: not a shard
  std::string partial_out;  // where the partial goes
};
void add_shard_flags(CLI::App& app, ShardFlags& f);

// What the shard measures: its pairs (a fixed number: no measure-until-decided, no extension), its
// seed and its layout order.
struct ShardPlan {
  ShardSpec spec;
  uint64_t seed = 0;        // the comparison's
  uint64_t shard_seed = 0;  // this shard's run order
  int pairs = 0;
  std::vector<std::string> base_binaries, head_binaries;  // rotated (verdict::shard_layouts)
};
// nullopt when --shard was not given. Otherwise fixes cfg and mo to the shard's pairs (its share of
// --max-runs when given, else of the runs) and returns the plan. Throws gate::Error (exit 2) for a
// bad --shard, a missing --partial-out, or --profile (a shard writes no report).
std::optional<ShardPlan> plan_shard(const ShardFlags& f, int profile_hz, runner::Config& cfg,
                                    runner::MeasureOptions& mo, int max_runs, uint64_t seed,
                                    const std::vector<std::string>& base_binaries,
                                    const std::vector<std::string>& head_binaries);
// After the shard measured: a failed run is its error (exit 3); else the partial is written and one
// line says what was measured. Returns 0: a shard never decides.
int finish_shard(const ShardPlan& plan, verdict::AbJudged& j, const runner::Config& cfg, const ShardFlags& f);

}  // namespace gate::cli
