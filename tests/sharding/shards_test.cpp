// gate merge's logic on synthetic partials (sharding/shards.hpp): runners of different speeds must not
// read as a change, a real slowdown must, and partials of another comparison are refused by name.
#include "sharding/shards.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"
#include "shards_synthetic.hpp"
#include "stats/instrument.hpp"
#include "verdict/exit_code.hpp"
#include "verdict/layouts.hpp"
#include "verdict/config_options.hpp"

namespace gate::sharding {
namespace {

constexpr int kShards = 3;
constexpr int kPairsPerShard = 6;

runner::Config config() {
  runner::Config cfg;
  cfg.path = "/repo/gate.yaml";
  cfg.hash = "fnv1a64:00000000000000aa";
  return cfg;
}

// Shard k's partial on a runner `speed` times slower, its head's main.f03 `head_scale` slower
// (tests/sharding/shards_synthetic.hpp).
Partial partial(int k, double speed, double head_scale, double sigma = 0.03, bool shared = true,
                int pairs = kPairsPerShard, int shards = kShards, uint64_t salt = 0) {
  return testing::synthetic_partial({.index = k, .shards = shards, .pairs = pairs, .speed = speed,
                                     .head_scale = head_scale, .sigma = sigma, .shared = shared, .salt = salt,
                                     .config_hash = config().hash});
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
  EXPECT_EQ(verdict::exit_code(m.comparison, false), ExitCode::kOk);
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
  EXPECT_NE(verdict::exit_code(m.comparison, false), ExitCode::kOk);
}

TEST(Shards, ARealSlowdownFlagsThatFunctionAlone) {
  const Merged m = merge_shards(config(), three(1.3), kPaths);
  EXPECT_EQ(find(m.comparison, "main.f03").verdict, stats::Verdict::kRegression);
  const auto* p50 = find(m.comparison, "main.f03").find("p50");
  ASSERT_NE(p50, nullptr);
  EXPECT_NEAR(p50->ratio, 1.3, 0.06);
  for (const auto& f : m.comparison.functions)
    if (f.name != "main.f03") EXPECT_NE(f.verdict, stats::Verdict::kRegression) << f.name;
  EXPECT_EQ(verdict::exit_code(m.comparison, false), ExitCode::kRegression);
}

TEST(Shards, ReportsEachShardsPairsAndNoise) {
  const Merged m = merge_shards(config(), three(1.0), kPaths);
  for (const auto& s : m.shards) {
    EXPECT_GT(s.noise, 0.0) << "shard " << s.index;
    EXPECT_LT(s.noise, 0.5) << "shard " << s.index;
    EXPECT_EQ(s.hostname, "runner-" + std::to_string(s.index));
  }
}

// The whole comparison as one gate ab judges all pairs (pooled noise): what the merge did before
// the runner became a block, and what it must still give for one shard.
stats::Comparison pooled(const Merged& m) {
  const runner::Config cfg = config();
  stats::CompareOptions o = verdict::compare_options(&cfg, m.head.functions);
  o.first_look = o.last_look = static_cast<int>(m.head.runs.size());
  return verdict::judge_with_layouts(m.base.runs, m.head.runs, m.base, m.head, o, nullptr);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

const stats::QuantileComparison& p50(const stats::Comparison& c, const std::string& name) {
  const auto* q = find(c, name).find("p50");
  if (!q) throw std::runtime_error("no p50 of " + name);
  return *q;
}

// (a) A runner 5x as noisy a pair as the others (noise per function, which no speed factor takes
// out), whose head also reads main.f03 1.2x by chance: pooled, its variance enters every interval
// and its 1.2x a third of the estimate; as a stratum it weighs ~1/25 as much as a quiet one.
TEST(Shards, ANoisyRunnerWeighsLessThanPoolingWouldMakeIt) {
  std::vector<Partial> parts = {partial(1, 1.0, 1.0, 0.03, false), partial(2, 1.0, 1.2, 0.15, false),
                                partial(3, 1.0, 1.0, 0.03, false)};
  const Merged m = merge_shards(config(), parts, kPaths);
  const stats::Comparison all = pooled(m);
  ASSERT_EQ(m.strata, 3);
  // The weights follow the measured noise: a shard's share ~ 1 / noise^2 per test (the noise here is
  // the p50's; the p99s, with more of each run's own sampling noise, differ less between runners,
  // and each test's weights rest on a few pairs' variance).
  const auto& quiet = m.shards[0];
  const auto& noisy = m.shards[1];
  ASSERT_GT(noisy.noise, 2 * quiet.noise) << "the synthetic runner is not noisier";
  const double expected = std::pow(quiet.noise / noisy.noise, 2);  // the noisy / quiet weight ratio
  EXPECT_LT(noisy.weight / quiet.weight, 4 * expected) << noisy.weight << " vs " << quiet.weight;
  EXPECT_LT(noisy.weight, 0.15);
  double sum = 0;
  for (const auto& s : m.shards) sum += s.weight;
  EXPECT_NEAR(sum, 1.0, 0.1);
  // Narrower than pooling: per function, the merged interval's scale against the pooled one.
  std::vector<double> narrowing;
  for (const auto& f : all.functions) narrowing.push_back(p50(m.comparison, f.name).log_scale / p50(all, f.name).log_scale);
  // Known weights would give sqrt(sum pairs / sum (pairs / noise^2)) / pooled noise; Meier's
  // correction and the runner's own within-run noise leave some of that.
  double inv = 0, var = 0;
  for (const auto& s : m.shards) {
    inv += s.pairs / (s.noise * s.noise);
    var += s.pairs * s.noise * s.noise;
  }
  const double ideal = std::sqrt(1 / inv) / std::sqrt(var / (kShards * kPairsPerShard) / (kShards * kPairsPerShard));
  EXPECT_LT(median(narrowing), std::min(0.8, 1.5 * ideal)) << "ideal " << ideal;
  std::printf("noisy/quiet weight %.3f (1/noise^2: %.3f), interval scale merged/pooled %.2f (known weights: %.2f), "
              "f03 %.3f merged, %.3f pooled\n",
              noisy.weight / quiet.weight, expected, median(narrowing), ideal, p50(m.comparison, "main.f03").ratio,
              p50(all, "main.f03").ratio);
  // The estimate leans on the quiet runners: the noisy runner's 1.2x enters with its weight.
  const double shift = std::log(1.2);
  EXPECT_NEAR(std::log(p50(all, "main.f03").ratio), shift / 3, 0.04);
  EXPECT_LT(std::abs(std::log(p50(m.comparison, "main.f03").ratio)), shift / 6);
  EXPECT_NEAR(std::log(p50(m.comparison, "main.f03").ratio), noisy.weight * shift, 0.04);
  EXPECT_EQ(verdict::exit_code(m.comparison, false), ExitCode::kOk);
}

// (b) A runner 1.5x slower and 3x noisier, in an A/A: nothing flagged, nothing improved.
TEST(Shards, ASlowNoisyRunnerInAnAAFlagsNothing) {
  for (uint64_t salt : {0, 1, 2, 3}) {
    std::vector<Partial> parts = {partial(1, 1.0, 1.0, 0.03, false, kPairsPerShard, kShards, salt),
                                  partial(2, 1.5, 1.0, 0.09, false, kPairsPerShard, kShards, salt),
                                  partial(3, 1.0, 1.0, 0.03, false, kPairsPerShard, kShards, salt)};
    const Merged m = merge_shards(config(), parts, kPaths);
    EXPECT_EQ(m.strata, 3);
    for (const auto& f : m.comparison.functions) {
      EXPECT_NE(f.verdict, stats::Verdict::kRegression) << f.name;
      EXPECT_NE(f.verdict, stats::Verdict::kImprovement) << f.name;
    }
    EXPECT_EQ(verdict::exit_code(m.comparison, false), ExitCode::kOk);
    EXPECT_LT(m.shards[1].weight, m.shards[0].weight);
  }
}

// (c) A real 1.3x slowdown of main.f03 on every runner, one of them slow and noisy: flagged alone.
TEST(Shards, ARealSlowdownIsFlaggedBesideASlowNoisyRunner) {
  std::vector<Partial> parts = {partial(1, 1.0, 1.3, 0.03, false), partial(2, 1.5, 1.3, 0.09, false),
                                partial(3, 1.0, 1.3, 0.03, false)};
  const Merged m = merge_shards(config(), parts, kPaths);
  EXPECT_EQ(find(m.comparison, "main.f03").verdict, stats::Verdict::kRegression);
  EXPECT_NEAR(p50(m.comparison, "main.f03").ratio, 1.3, 0.06);
  for (const auto& f : m.comparison.functions) {
    if (f.name != "main.f03") EXPECT_NE(f.verdict, stats::Verdict::kRegression) << f.name;
  }
  EXPECT_EQ(verdict::exit_code(m.comparison, false), ExitCode::kRegression);
}

// One shard is gate ab: the same intervals and verdicts to the last digit.
TEST(Shards, OneShardGivesExactlyWhatGateAbGives) {
  const std::vector<Partial> parts = {partial(1, 1.0, 1.3, 0.03, false, 12, 1)};
  const Merged m = merge_shards(config(), parts, {"shard1.json"});
  const stats::Comparison ab = pooled(m);
  EXPECT_EQ(m.strata, 1);
  ASSERT_EQ(m.comparison.functions.size(), ab.functions.size());
  for (const auto& f : ab.functions)
    for (const auto& q : f.quantiles) {
      const auto* mq = find(m.comparison, f.name).find(q.name);
      ASSERT_NE(mq, nullptr);
      EXPECT_EQ(mq->ci_low, q.ci_low) << f.name << " " << q.name;
      EXPECT_EQ(mq->ci_high, q.ci_high) << f.name << " " << q.name;
      EXPECT_EQ(mq->verdict, q.verdict) << f.name << " " << q.name;
    }
  EXPECT_EQ(m.comparison.exit_code, ab.exit_code);
  EXPECT_EQ(find(m.comparison, "main.f03").verdict, stats::Verdict::kRegression);
}

// A shard of 2 pairs has no noise of its own: pooled into the smallest shard that has one, and the
// figures say so.
TEST(Shards, AShardOfTooFewPairsIsPooledAndSaysSo) {
  EXPECT_EQ(shard_strata({6, 2, 6}), (std::vector<std::vector<size_t>>{{0, 1}, {2}}));
  EXPECT_EQ(shard_strata({6, 2, 2, 5}), (std::vector<std::vector<size_t>>{{0}, {3}, {1, 2}}));
  EXPECT_EQ(shard_strata({2, 1}), (std::vector<std::vector<size_t>>{{0, 1}}));
  std::vector<Partial> parts = {partial(1, 1.0, 1.0), partial(2, 1.0, 1.0, 0.03, true, 2), partial(3, 1.0, 1.0)};
  const Merged m = merge_shards(config(), parts, kPaths);
  EXPECT_EQ(m.strata, 2);
  EXPECT_EQ(m.shards[1].stratum, (std::vector<int>{1, 2}));
  EXPECT_EQ(m.shards[0].stratum, (std::vector<int>{1, 2}));
  EXPECT_EQ(m.shards[2].stratum, (std::vector<int>{3}));
  EXPECT_NEAR(m.shards[1].weight / m.shards[0].weight, 2.0 / kPairsPerShard, 1e-9);  // the stratum's share by pairs
}

// The combination itself: inverse-variance weights; with many degrees of freedom no correction.
TEST(Shards, CombinesStrataByInverseVariance) {
  const StratifiedEstimate e = combine_strata({0.1, 0.3}, {0.1, 0.2}, {1e9, 1e9});
  const double w1 = 1 / 0.01, w2 = 1 / 0.04;
  EXPECT_NEAR(e.log_center, (w1 * 0.1 + w2 * 0.3) / (w1 + w2), 1e-12);
  EXPECT_NEAR(e.log_scale, std::sqrt(1 / (w1 + w2)), 1e-9);
  EXPECT_NEAR(e.shares[0], w1 / (w1 + w2), 1e-12);
  // Equal strata of few degrees of freedom: Satterthwaite adds theirs, Meier widens the variance.
  const StratifiedEstimate small = combine_strata({0, 0, 0}, {0.1, 0.1, 0.1}, {4, 4, 4});
  EXPECT_NEAR(small.df, 12, 1e-9);
  const double plain = 0.1 / std::sqrt(3.0);
  EXPECT_GT(small.log_scale, plain);
  EXPECT_NEAR(small.log_scale * small.log_scale, plain * plain * (1 + 4 * 3 * (1.0 / 3) * (2.0 / 3) / 4), 1e-12);
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
  EXPECT_NE(msg.find("--no-build"), std::string::npos) << "the fix says to build once: " << msg;
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

// gate merge under measure: auto (issue 54): each shard ran its own pilot pair and sized its own
// sampled executions (10 a unit, 4, none: samples from the probed executions), as shards do. The
// merge leaves every pilot out of every test and count, keeps every other unit in the sampled test
// whatever its size, and flags main.f03 (its own CPU and its latency 1.3x) alone; the A/A flags nothing.
std::vector<Partial> sampled_shards(double head_scale) {
  std::vector<Partial> parts = three(head_scale, 1.0);
  const int sampled[kShards] = {10, 4, 0};
  for (int k = 0; k < kShards; ++k)
    for (auto* side : {&parts[k].base, &parts[k].head}) {
      side->context.probe_cost_ns = 8000;
      const bool head = side == &parts[k].head;
      for (size_t r = 0; r < side->runs.size(); ++r) {
        RunResult& run = side->runs[r];
        run.pilot = r == 0;
        run.sample_period_ns = 200'000;
        run.sampled_executions = r == 0 ? 0 : sampled[k];
        const double executions = run.sampled_executions > 0 ? run.sampled_executions : 1;
        for (auto& f : run.functions) {
          // ~2 us of own CPU a call at base; a pilot's counts are off by 3x (probes on): left out.
          const double own = (f.name == "main.f03" ? 2000.0 * (head ? head_scale : 1.0) : 1000.0) * (r == 0 ? 3 : 1);
          const double mean = static_cast<double>(f.calls) * executions * own / 200'000;
          f.cpu_samples = f.self_samples = static_cast<uint64_t>(mean * (1 + 0.02 * std::sin(3.0 * r + k)));
          f.trial_self_samples = f.self_samples;
        }
        if (r == 0) run.trial_executions = 1;
      }
    }
  return parts;
}

TEST(Shards, MergeUnderAutoLeavesPilotsOutAndTakesEveryShardsSampledUnits) {
  const Merged m = merge_shards(config(), sampled_shards(1.3), kPaths);
  for (const auto& s : m.shards) EXPECT_EQ(s.pairs, kPairsPerShard - 1) << "shard " << s.index << ": its pilot is no pair";
  const auto& f = find(m.comparison, "main.f03");
  EXPECT_EQ(f.instrument, static_cast<uint8_t>(stats::Instrument::kBoth));
  const auto* cpu = f.find(stats::kSampledTestName);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->units, kShards * (kPairsPerShard - 1)) << "every non-pilot unit, whatever its sampled executions";
  EXPECT_NEAR(cpu->ratio, 1.3, 0.05);
  EXPECT_EQ(f.verdict, stats::Verdict::kRegression);
  for (const auto& g : m.comparison.functions)
    if (g.name != "main.f03") EXPECT_NE(g.verdict, stats::Verdict::kRegression) << g.name;
  const Merged aa = merge_shards(config(), sampled_shards(1.0), kPaths);
  for (const auto& g : aa.comparison.functions) EXPECT_NE(g.verdict, stats::Verdict::kRegression) << g.name;
  EXPECT_EQ(verdict::exit_code(aa.comparison, false), ExitCode::kOk);
}

}  // namespace
}  // namespace gate::sharding
