// gate merge's logic on synthetic partials (verdict/shards.hpp): runners of different speeds must not
// read as a change, a real slowdown must, and partials of another comparison are refused by name.
#include "verdict/shards.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "synthetic.hpp"

namespace gate::verdict {
namespace {

constexpr int kShards = 3;
constexpr int kPairsPerShard = 6;

std::vector<testing::SyntheticFunction> functions(double runner_speed, double slowed_scale = 1.0) {
  auto fs = testing::synthetic_functions(8);
  for (auto& f : fs) f.scale = runner_speed;
  fs[3].scale *= slowed_scale;  // "main.f03": the function a head may slow
  return fs;
}

runner::Config config() {
  runner::Config cfg;
  cfg.path = "/repo/gate.yaml";
  cfg.hash = "fnv1a64:00000000000000aa";
  return cfg;
}

// Shard k's partial on a runner `speed` times slower, its head's main.f03 `head_scale` slower. Both
// sides of a pair meet the same machine state (machine_seed), as gate ab's back-to-back runs do.
Partial partial(int k, double speed, double head_scale) {
  Partial p;
  p.shard = {k, kShards};
  p.seed = 1;
  p.shard_seed = shard_seed(1, p.shard);
  p.runner = "fnv1a64:runner" + std::to_string(k);
  p.hostname = "runner-" + std::to_string(k);
  p.config_hash = config().hash;
  p.base_build_id = "base-id";
  p.head_build_id = "head-id";
  testing::SyntheticNoise noise;
  noise.run_sigma = 0.03;
  noise.shared_per_run = true;
  noise.slow_fraction = 0.3;  // a CI runner's two speed states
  noise.machine_seed = 100 + k;
  p.base = testing::synthetic_meta(functions(speed));
  p.head = testing::synthetic_meta(functions(speed, head_scale));
  p.base.context.config_hash = p.head.context.config_hash = p.config_hash;
  p.base.runs = testing::synthetic_runs(functions(speed), kPairsPerShard, noise, 10 * k + 1, "base");
  p.head.runs = testing::synthetic_runs(functions(speed, head_scale), kPairsPerShard, noise, 10 * k + 2, "head");
  return p;
}

std::vector<Partial> three(double head_scale, double slow_runner = 1.5) {
  return {partial(1, 1.0, head_scale), partial(2, slow_runner, head_scale), partial(3, 1.0, head_scale)};
}
const std::vector<std::string> kPaths = {"shard1.json", "shard2.json", "shard3.json"};

const stats::FunctionComparison& find(const stats::Comparison& c, const std::string& name) {
  for (const auto& f : c.functions)
    if (f.name == name) return f;
  throw std::runtime_error("no " + name);
}

TEST(Shards, AFastAndASlowRunnerInAnAADoNotFlag) {
  const Merged m = merge_shards(config(), three(1.0), kPaths);
  ASSERT_EQ(m.shards.size(), 3u);
  for (const auto& s : m.shards) EXPECT_EQ(s.pairs, kPairsPerShard);
  EXPECT_EQ(m.head.runs.size(), static_cast<size_t>(kShards * kPairsPerShard));
  EXPECT_TRUE(m.comparison.paired);
  for (const auto& f : m.comparison.functions) {
    EXPECT_NE(f.verdict, stats::Verdict::kRegression) << f.name;
    EXPECT_NE(f.verdict, stats::Verdict::kImprovement) << f.name;
  }
  if (m.comparison.common_shift_tested) {
    EXPECT_NE(m.comparison.common_shift.verdict, stats::Verdict::kRegression);
    EXPECT_NE(m.comparison.common_shift.verdict, stats::Verdict::kImprovement);
  }
  EXPECT_EQ(stats::verdict_exit_code(m.comparison, false), ExitCode::kOk);
}

// The control: had each pair's head run on a runner 1.5x slower than its base (sides measured on
// different machines), the runner's speed would read as a change of everything. The A/A above passes
// because base and head of a pair meet one runner, not because the merge is lenient.
TEST(Shards, ARunnersSpeedReadsAsAChangeWhenAPairCrossesRunners) {
  std::vector<Partial> parts = {partial(1, 1.0, 1.0), partial(2, 1.0, 1.0), partial(3, 1.0, 1.0)};
  for (int k = 1; k <= kShards; ++k) parts[k - 1].head.runs = partial(k, 1.5, 1.0).head.runs;
  const Merged m = merge_shards(config(), parts, kPaths);
  // Every function moves alike: the common-mode test (all functions) is what sees it.
  ASSERT_TRUE(m.comparison.common_shift_tested);
  const auto& shift = m.comparison.common_shift;
  EXPECT_NEAR(shift.ratio, 1.5, 0.1);
  EXPECT_EQ(shift.verdict, stats::Verdict::kRegression) << "[" << shift.ci_low << ", " << shift.ci_high << "]";
  EXPECT_NE(stats::verdict_exit_code(m.comparison, false), ExitCode::kOk);
}

TEST(Shards, ARealSlowdownFlagsThatFunctionAlone) {
  const Merged m = merge_shards(config(), three(1.3), kPaths);
  EXPECT_EQ(find(m.comparison, "main.f03").verdict, stats::Verdict::kRegression);
  const auto* p50 = find(m.comparison, "main.f03").find("p50");
  ASSERT_NE(p50, nullptr);
  EXPECT_NEAR(p50->ratio, 1.3, 0.06);
  for (const auto& f : m.comparison.functions)
    if (f.name != "main.f03") EXPECT_NE(f.verdict, stats::Verdict::kRegression) << f.name;
  EXPECT_EQ(stats::verdict_exit_code(m.comparison, false), ExitCode::kRegression);
}

TEST(Shards, ReportsEachShardsPairsAndNoise) {
  const Merged m = merge_shards(config(), three(1.0), kPaths);
  for (const auto& s : m.shards) {
    EXPECT_GT(s.noise, 0.0) << "shard " << s.index;
    EXPECT_LT(s.noise, 0.5) << "shard " << s.index;
    EXPECT_EQ(s.hostname, "runner-" + std::to_string(s.index));
  }
}

std::string refusal(std::vector<Partial> parts) {
  try {
    merge_shards(config(), std::move(parts), kPaths);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    EXPECT_FALSE(e.fix().empty());
    return e.what();
  }
  return "";
}

TEST(Shards, RefusesAnotherConfigNamingIt) {
  auto parts = three(1.0);
  parts[2].config_hash = "fnv1a64:00000000000000bb";
  const std::string msg = refusal(parts);
  EXPECT_NE(msg.find("shard3.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("config"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fnv1a64:00000000000000bb"), std::string::npos) << msg;
}

TEST(Shards, RefusesOtherBinariesNamingTheSide) {
  auto parts = three(1.0);
  parts[1].head_build_id = "other-head";
  const std::string msg = refusal(parts);
  EXPECT_NE(msg.find("shard2.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("head binary"), std::string::npos) << msg;
  EXPECT_NE(msg.find("other-head"), std::string::npos) << msg;
  parts = three(1.0);
  parts[2].base_build_id = "other-base";
  EXPECT_NE(refusal(parts).find("base binary"), std::string::npos);
}

TEST(Shards, RefusesADuplicatedOrMissingShard) {
  auto parts = three(1.0);
  parts[2] = partial(2, 1.0, 1.0);
  EXPECT_NE(refusal(parts).find("shard 2/3: is given twice"), std::string::npos) << refusal(parts);
  parts.pop_back();
  EXPECT_NE(refusal({partial(1, 1, 1), partial(3, 1, 1)}).find("shard 2/3: is missing"), std::string::npos);
}

TEST(Shards, RefusesAConfigOtherThanTheShards) {
  runner::Config other = config();
  other.hash = "fnv1a64:00000000000000cc";
  try {
    merge_shards(other, three(1.0), kPaths);
    FAIL() << "merged with another config";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/repo/gate.yaml"), std::string::npos) << e.what();
  }
}

TEST(Shards, PartialRoundTripsThroughJson) {
  const Partial p = partial(2, 1.5, 1.0);
  const Partial q = partial_from_json_text(partial_to_json_text(p), "p.json");
  EXPECT_EQ(q.shard.index, 2);
  EXPECT_EQ(q.shard.count, kShards);
  EXPECT_EQ(q.shard_seed, p.shard_seed);
  EXPECT_EQ(q.runner, p.runner);
  EXPECT_EQ(q.head_build_id, "head-id");
  ASSERT_EQ(q.pairs(), kPairsPerShard);
  EXPECT_EQ(q.head.runs[4].functions[3].histogram.count(), p.head.runs[4].functions[3].histogram.count());
  EXPECT_THROW(partial_from_json_text("{\"runs\": []}", "r.json"), Error);
}

TEST(Shards, PlanSplitsPairsSeedsAndLayouts) {
  EXPECT_EQ(shard_pairs(10, parse_shard("1/3")), 4);
  EXPECT_EQ(shard_pairs(10, parse_shard("2/3")), 3);
  EXPECT_EQ(shard_pairs(10, parse_shard("3/3")), 3);
  EXPECT_THROW(shard_pairs(2, parse_shard("3/3")), Error);
  EXPECT_NE(shard_seed(1, parse_shard("1/3")), shard_seed(1, parse_shard("2/3")));
  EXPECT_EQ(shard_seed(7, parse_shard("2/3")), shard_seed(7, parse_shard("2/3")));
  for (const char* bad : {"3", "0/3", "4/3", "2/3x", "a/b"}) EXPECT_THROW(parse_shard(bad), Error) << bad;
  const std::vector<std::string> v = {"a", "b", "c"};
  EXPECT_EQ(shard_layouts(v, parse_shard("2/3")), (std::vector<std::string>{"b", "c", "a"}));
  ResultFile r;
  r.runs.resize(3);
  for (int i = 0; i < 3; ++i) r.runs[i].layout = i;  // measured b, c, a
  unrotate_layouts(r, 3, parse_shard("2/3"));
  EXPECT_EQ(r.runs[0].layout, 1);
  EXPECT_EQ(r.runs[2].layout, 0);
}

}  // namespace
}  // namespace gate::verdict
