// diff_subtree: per-call self time by frame under a function, base against head, and its noise test
// (exact conditional binomial, Benjamini-Hochberg), on profiles drawn from known rates with a
// seeded generator: a doubled child reads +100% ±15% and is the only frame flagged; base against
// base flags frames no more often than the test's level.
#include "profile/profile_diff.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace gate::profile {
namespace {

// Samples under main.F, by leaf: each stack is leaf -> main.F -> main.main.
Profile make(int hz, const std::map<std::string, uint64_t>& leaves, uint64_t outside = 0) {
  Profile p;
  p.hz = hz;
  p.locations.push_back({0x1000, {{"main.F", "f.go", 10, 1, false}}});
  p.locations.push_back({0x2000, {{"main.main", "m.go", 5, 1, false}}});
  for (const auto& [leaf, n] : leaves) {
    p.locations.push_back({0x3000 + p.locations.size(), {{leaf, "l.go", 3, 1, false}}});
    if (n) p.samples.push_back({{static_cast<uint32_t>(p.locations.size() - 1), 0, 1}, n});
  }
  if (outside) p.samples.push_back({{1}, outside});  // not under main.F: must not count
  return p;
}

// Expected samples: ns per call x calls / period; drawn as Poisson.
std::map<std::string, uint64_t> draw(std::mt19937_64& rng, const std::map<std::string, double>& ns_per_call,
                                     uint64_t calls, int hz) {
  std::map<std::string, uint64_t> out;
  for (const auto& [f, ns] : ns_per_call)
    out[f] = std::poisson_distribution<uint64_t>(ns * static_cast<double>(calls) * hz / 1e9)(rng);
  return out;
}

bool frame_significant(const SubtreeDiff& d, const std::string& frame) {
  for (const auto& f : d.frames)
    if (f.frame == frame) return f.significant;
  return false;
}

TEST(Binomial, TwoSidedExactValues) {
  EXPECT_NEAR(binomial_two_sided(5, 10, 0.5), 1.0, 1e-12);
  EXPECT_NEAR(binomial_two_sided(0, 10, 0.5), 2.0 / 1024, 1e-12);
  EXPECT_NEAR(binomial_two_sided(9, 10, 0.5), 22.0 / 1024, 1e-12);
  EXPECT_NEAR(binomial_two_sided(0, 0, 0.3), 1.0, 1e-12);
}

TEST(ProfileDiff, DoubledChildReadsPlus100PercentAndIsTheOnlyFrameFlagged) {
  std::mt19937_64 rng(42);
  const std::map<std::string, double> base_rates = {{"main.a", 20000}, {"main.b", 10000}, {"main.c", 5000}, {"main.F", 2000}};
  auto head_rates = base_rates;
  head_rates["main.a"] *= 2;
  int flagged_others = 0;
  for (int trial = 0; trial < 50; ++trial) {
    // +100% ±15 points is a ratio within 2 x (1 ± 7.5%): at 4 sigma the log ratio's SD
    // sqrt(1/n_base + 1/n_head) must stay under 0.019, so ~4,200 base samples of main.a: 1.1M calls
    // of 20 us at 199 Hz (22 s of main.a per side).
    const uint64_t calls = 1'100'000;
    const Profile b = make(199, draw(rng, base_rates, calls, 199), 500);
    const Profile h = make(199, draw(rng, head_rates, calls, 199), 500);
    const SubtreeDiff d = diff_subtree(b, h, "main.F", calls, calls);
    ASSERT_FALSE(d.frames.empty());
    EXPECT_EQ(d.frames[0].frame, "main.a");  // largest change first
    EXPECT_TRUE(d.frames[0].significant) << "trial " << trial;
    const double ratio = d.frames[0].head_ns_per_call / d.frames[0].base_ns_per_call;
    EXPECT_NEAR(ratio, 2.0, 0.15) << "trial " << trial;  // +100% ±15 points
    for (size_t i = 1; i < d.frames.size(); ++i) flagged_others += d.frames[i].significant;
  }
  EXPECT_LE(flagged_others, 10) << "of 150 unchanged frames in 50 trials";
}

TEST(ProfileDiff, BaseAgainstBaseFlagsNoMoreThanItsLevel) {
  std::mt19937_64 rng(7);
  std::map<std::string, double> rates;
  for (int i = 0; i < 10; ++i) rates["main.f" + std::to_string(i)] = 1000.0 * (i + 1);
  int trials_with_a_flag = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    const Profile b = make(199, draw(rng, rates, 30000, 199)), h = make(199, draw(rng, rates, 30000, 199));
    const SubtreeDiff d = diff_subtree(b, h, "main.F", 30000, 30000, 0.05, /*dispersion=*/1.0);
    bool any = false;
    for (const auto& f : d.frames) any = any || f.significant;
    trials_with_a_flag += any;
  }
  // Under the global null BH holds the chance of any flag at q = 5%; 3 binomial SDs over 400 trials.
  EXPECT_LE(trials_with_a_flag, static_cast<int>(trials * (0.05 + 3 * std::sqrt(0.05 * 0.95 / trials))));
}

// The real sampler's A/A (profile_accuracy_test, 3 CPU-seconds a side): childC read 1,092 base
// against 958 head samples at equal calls, -11.9% per call, p=0.004 as a binomial draw. Samples
// vary more than that (kSampleDispersion): the default test does not name it; a 2x change does.
TEST(ProfileDiff, ASpreadAsWideAsTheMachinesIsNotNamedButADoubledFrameIs) {
  const Profile b = make(997, {{"main.a", 1092}, {"main.b", 964}, {"main.c", 931}});
  const Profile h = make(997, {{"main.a", 958}, {"main.b", 1007}, {"main.c", 1018}});
  const SubtreeDiff binomial = diff_subtree(b, h, "main.F", 1000, 1000, 0.05, 1.0);
  EXPECT_TRUE(frame_significant(binomial, "main.a")) << describe(binomial);
  const SubtreeDiff d = diff_subtree(b, h, "main.F", 1000, 1000);
  for (const auto& f : d.frames) EXPECT_FALSE(f.significant) << f.frame << " p=" << f.p_value;
  const Profile doubled = make(997, {{"main.a", 2184}, {"main.b", 964}, {"main.c", 931}});
  const SubtreeDiff d2 = diff_subtree(b, doubled, "main.F", 1000, 1000);
  EXPECT_TRUE(frame_significant(d2, "main.a")) << describe(d2);
  EXPECT_FALSE(frame_significant(d2, "main.b"));
}

TEST(ProfileDiff, NormalisesPerCallAndPerSamplingRate) {
  // Head made twice the calls and sampled at 997 Hz: the same time per call is no change.
  const Profile b = make(199, {{"main.a", 1990}, {"main.b", 995}});
  const Profile h = make(997, {{"main.a", 19940}, {"main.b", 9970}});
  const SubtreeDiff d = diff_subtree(b, h, "main.F", 1000, 2000);
  EXPECT_NEAR(d.base_ns_per_call, d.head_ns_per_call, d.base_ns_per_call * 1e-3);
  for (const auto& f : d.frames) EXPECT_FALSE(f.significant) << f.frame;
  EXPECT_NE(describe(d).find("no frame changed beyond sampling noise"), std::string::npos) << describe(d);
}

}  // namespace
}  // namespace gate::profile
