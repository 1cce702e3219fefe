// Where a test's noise comes from (stats/noise_sources): the calls' sampling against the state they
// met, and when in the run the calls were made; and the clause an inconclusive verdict gets from it.
#include "stats/noise_sources.hpp"
#include "explain/explain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "stats/compare.hpp"
#include "synthetic.hpp"

namespace gate::stats {
namespace {

// `runs` runs of `calls` log-normal calls (sigma 0.5 around 50 us) in a 1 s run; when: "" leaves
// the moments unknown, "burst" puts every call at 5 ms, "spread" spreads them evenly.
struct Runs {
  std::vector<FunctionRun> storage;
  std::vector<const FunctionRun*> runs;
  std::vector<double> durations;
};
Runs make_runs(int runs, int calls, const std::string& when, uint64_t seed) {
  Runs out;
  out.storage.resize(runs);
  std::mt19937_64 g(seed);
  std::lognormal_distribution<double> ln(std::log(50'000.0), 0.5);
  for (auto& f : out.storage) {
    f.name = FunctionName("main.f");
    for (int k = 0; k < calls; ++k) {
      f.histogram.add(static_cast<uint64_t>(ln(g)));
      ++f.calls;
      if (when.empty()) continue;
      const uint64_t ns = when == "burst" ? 5'000'000ull : (uint64_t(k) * 1'000'000'000ull) / calls;
      f.sum_start_us += ns >> 10;
      f.sum_start_ms2 += (ns >> 20) * (ns >> 20);
    }
    out.runs.push_back(&f);
    out.durations.push_back(1.0);
  }
  return out;
}

TEST(NoiseSources, SplitsSamplingFromStateAndTellsABurstFromCallsSpreadOverTheRun) {
  const Runs b = make_runs(10, 100, "", 1), h = make_runs(10, 100, "", 2);
  const NoiseSources s = noise_sources(b.runs, b.durations, h.runs, h.durations, 0.5);
  // One run's p50 of 100 calls: 1.2533 x 0.5 / 10 = 6.3%; a pair sqrt(2) times that.
  EXPECT_NEAR(s.sampling, std::sqrt(2.0) * 0.0627, 0.2 * 0.0887);
  EXPECT_EQ(s.calls_per_run, 100);
  EXPECT_LT(s.moment_mean, 0);  // unknown
  EXPECT_FALSE(s.in_a_burst());
  EXPECT_FALSE(s.spread_over_the_run());
  EXPECT_NEAR(s.sampling_share(s.sampling), 1.0, 1e-9);
  EXPECT_NEAR(s.sampling_share(2 * s.sampling), 0.25, 1e-9);

  const Runs bb = make_runs(10, 100, "burst", 3), hb = make_runs(10, 100, "burst", 4);
  const NoiseSources burst = noise_sources(bb.runs, bb.durations, hb.runs, hb.durations, 0.5);
  EXPECT_TRUE(burst.in_a_burst());
  EXPECT_NEAR(burst.moment_mean, 0.005, 0.002);
  const Runs bs = make_runs(10, 100, "spread", 5), hs = make_runs(10, 100, "spread", 6);
  const NoiseSources spread = noise_sources(bs.runs, bs.durations, hs.runs, hs.durations, 0.5);
  EXPECT_TRUE(spread.spread_over_the_run());
  EXPECT_NEAR(spread.moment_mean, 0.5, 0.01);
  EXPECT_NEAR(spread.moment_sd, 0.289, 0.01);  // uniform: 1 / sqrt(12)

  // A side without the function: nothing known.
  const std::vector<const FunctionRun*> none(10, nullptr);
  const NoiseSources unknown = noise_sources(b.runs, b.durations, none, b.durations, 0.5);
  EXPECT_EQ(unknown.sampling, 0);
  EXPECT_EQ(explain::noise_hint(unknown, 0.1), "");
}

TEST(NoiseSources, TheHintSaysWhatWouldNarrowTheInterval) {
  const Runs b = make_runs(10, 100, "", 1), h = make_runs(10, 100, "", 2);
  const NoiseSources few = noise_sources(b.runs, b.durations, h.runs, h.durations, 0.5);
  // Mostly sampling: a longer workload, whenever the calls are made.
  EXPECT_NE(explain::noise_hint(few, few.sampling * 1.1).find("of its 100 calls a run made: a longer workload"),
            std::string::npos)
      << explain::noise_hint(few, few.sampling * 1.1);
  // Mostly the state the calls met: it depends on when they were made.
  const Runs bb = make_runs(10, 100, "burst", 3), hb = make_runs(10, 100, "burst", 4);
  const NoiseSources burst = noise_sources(bb.runs, bb.durations, hb.runs, hb.durations, 0.5);
  EXPECT_NE(explain::noise_hint(burst, burst.sampling * 3).find("burst (0% +- 0% of the run"), std::string::npos)
      << explain::noise_hint(burst, burst.sampling * 3);
  EXPECT_NE(explain::noise_hint(burst, burst.sampling * 3).find("only more runs"), std::string::npos);
  const Runs bs = make_runs(10, 100, "spread", 5), hs = make_runs(10, 100, "spread", 6);
  const NoiseSources spread = noise_sources(bs.runs, bs.durations, hs.runs, hs.durations, 0.5);
  EXPECT_NE(explain::noise_hint(spread, spread.sampling * 3).find("spread over the run ("), std::string::npos)
      << explain::noise_hint(spread, spread.sampling * 3);
  EXPECT_NE(explain::noise_hint(spread, spread.sampling * 3).find("% +- 29% of it): a longer workload"),
            std::string::npos)
      << explain::noise_hint(spread, spread.sampling * 3);
  // Mostly the state, moments unknown: nothing to add to "more runs".
  EXPECT_EQ(explain::noise_hint(few, few.sampling * 3), "");
}

// In a comparison: an inconclusive function whose runs were few calls each says a longer workload
// would narrow it; one whose noise is the run-to-run state (with moments unknown) does not.
TEST(NoiseSources, AnInconclusiveVerdictSaysWhetherALongerWorkloadWouldHelp) {
  const auto few_calls = testing::synthetic_functions(4, 40);
  testing::SyntheticNoise quiet;
  quiet.run_sigma = 0.001;
  const auto meta = testing::synthetic_meta(few_calls);
  CompareOptions o;
  o.quantiles = {QuantileSpec::parse("p50")};
  o.thresholds.defaults = {0.02, 0.02};
  const Comparison c = compare(testing::synthetic_runs(few_calls, 12, quiet, 11, "base"),
                               testing::synthetic_runs(few_calls, 12, quiet, 12, "head"), meta, meta, o);
  int inconclusive = 0;
  for (const auto& f : c.functions)
    for (const auto& q : f.quantiles)
      if (q.verdict == Verdict::kInconclusive && q.units_to_decide > 0) {
        ++inconclusive;
        EXPECT_NE(explain::reason(q).find("calls a run made: a longer workload"), std::string::npos) << explain::reason(q);
      }
  EXPECT_GT(inconclusive, 0);

  const auto many_calls = testing::synthetic_functions(4, 4000);
  testing::SyntheticNoise noisy;
  noisy.run_sigma = 0.15;
  const auto meta2 = testing::synthetic_meta(many_calls);
  const Comparison c2 = compare(testing::synthetic_runs(many_calls, 12, noisy, 21, "base"),
                                testing::synthetic_runs(many_calls, 12, noisy, 22, "head"), meta2, meta2, o);
  inconclusive = 0;
  for (const auto& f : c2.functions)
    for (const auto& q : f.quantiles)
      if (q.verdict == Verdict::kInconclusive) {
        ++inconclusive;
        EXPECT_EQ(explain::reason(q).find("longer workload"), std::string::npos) << explain::reason(q);
      }
  EXPECT_GT(inconclusive, 0);
}

}  // namespace
}  // namespace gate::stats
