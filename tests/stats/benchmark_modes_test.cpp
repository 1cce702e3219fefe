// Modes across a benchmark's executions (stats/benchmark_modes.hpp) and the fold that decides
// (stats/benchmark_tests.cpp), on constructed executions: processes that run at one of two speeds
// (issue 54's library benchmark), one speed with noise or a neighbour's slow tail, and mixes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "results/unit_merge.hpp"
#include "stats/benchmark_modes.hpp"
#include "stats/benchmark_tests.hpp"

namespace gate::stats {
namespace {

// How often find_modes splits `sets` sets of values drawn by `draw`.
template <class Draw>
double split_rate(int sets, size_t n, Draw draw, double min_ratio = 1.05) {
  int found = 0;
  for (int s = 0; s < sets; ++s) {
    std::vector<double> v;
    for (size_t i = 0; i < n; ++i) v.push_back(draw());
    found += find_modes(v, min_ratio).found;
  }
  return static_cast<double>(found) / sets;
}

std::mt19937_64 rng(54);
double gauss(double sd) { return std::normal_distribution<double>(0, sd)(rng); }
double uniform() { return std::uniform_real_distribution<double>(0, 1)(rng); }

// Two speeds of processes 1.8x apart (the 320-350 and 550-650 MB/s), 40% in the slow one.
double two_speeds() { return uniform() < 0.4 ? 335 * std::exp(gauss(0.03)) : 600 * std::exp(gauss(0.05)); }
double one_speed() { return 600 * std::exp(gauss(0.03)); }
double heavy_tailed() { return 600 * std::exp(uniform() < 0.9 ? gauss(0.03) : gauss(0.12)); }
// A tight speed with a neighbour's bursts: 30% of executions slowed by 1-2x.
double bursts() { return 1000 * std::exp(gauss(0.01)) * (uniform() < 0.3 ? 1 + uniform() : 1.0); }

TEST(FindModes, TwoSpeedsOfProcessesAreFoundAndOneSpeedIsNot) {
  std::vector<double> v;
  for (int i = 0; i < 12; ++i) v.push_back(i % 3 ? 600 + 4 * i : 330 + 2 * i);
  const ModeSplit s = find_modes(v, 1.05);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.lower, 4);
  EXPECT_EQ(s.upper, 8);
  EXPECT_GT(s.separation, 10);
  EXPECT_EQ(mode_of(std::log(340.0), s), 0);
  EXPECT_EQ(mode_of(std::log(620.0), s), 1);
  // The same values with the slow ones moved to the middle of the fast: one spread, not two modes.
  for (auto& x : v)
    if (x < 400) x += 260;
  EXPECT_FALSE(find_modes(v, 1.05).found);
  // Too few values to tell, and a split narrower than the band.
  EXPECT_FALSE(find_modes(std::vector<double>{330, 600, 610, 340, 620, 335, 605}, 1.05).found);
  EXPECT_FALSE(find_modes(std::vector<double>{100, 101, 100, 101, 104, 105, 104, 105, 100, 105}, 1.10).found);
}

// The rates its documentation quotes (benchmark_modes.hpp), over 400 simulated sets each.
TEST(FindModes, RatesOnSimulatedExecutions) {
  const double one10 = split_rate(400, 10, one_speed), one35 = split_rate(400, 35, one_speed);
  const double heavy35 = split_rate(400, 35, heavy_tailed);
  const double two10 = split_rate(400, 10, two_speeds), two16 = split_rate(400, 16, two_speeds),
               two35 = split_rate(400, 35, two_speeds);
  const double burst16 = split_rate(400, 16, bursts), burst35 = split_rate(400, 35, bursts);
  std::printf("one speed: 10 values %.3f, 35 %.3f; heavy tail 35 %.3f; two speeds: 10 %.3f, 16 %.3f, 35 %.3f; "
              "bursts: 16 %.3f, 35 %.3f\n", one10, one35, heavy35, two10, two16, two35, burst16, burst35);
  EXPECT_LE(one10, 0.02);
  EXPECT_EQ(one35, 0);
  EXPECT_LE(heavy35, 0.01);
  EXPECT_GE(two10, 0.45);
  EXPECT_GE(two16, 0.88);
  EXPECT_EQ(two35, 1);
  EXPECT_LE(burst35, 0.25);
}

TEST(FoldPerMode, EachModesBestWeighedByItsShare) {
  const std::vector<double> e = {600, 330, 640, 350, 610};  // MB/s: 3 fast, 2 slow
  ModeSplit s;
  s.found = true;
  s.split = std::log(450.0);
  const ModeLabels labels = label_modes({e}, s, true);
  EXPECT_EQ(labels[0], (std::vector<int>{0, 1, 0, 1, 0})) << "0 is the fast mode: more throughput";
  EXPECT_EQ(label_modes({{100, 200}}, s, false)[0], (std::vector<int>{0, 0})) << "time: less is fast";
  double best[2];
  const double v = fold_per_mode(e, labels[0], true, best);
  EXPECT_DOUBLE_EQ(best[0], 640);
  EXPECT_DOUBLE_EQ(best[1], 350);
  EXPECT_NEAR(v, std::exp((2 * std::log(350.0) + 3 * std::log(640.0)) / 5), 1e-9);
  const double t = fold_per_mode(std::vector<double>{3.0, 1.0, 2.0}, {}, false, best);
  EXPECT_DOUBLE_EQ(t, 1.0) << "one mode: the unit's fastest execution, as results/unit_merge.cpp folds it";
}

// `pairs` units a side of `k` executions of a throughput benchmark, as gate ab measures them
// (results/unit_merge.cpp folds each unit), the executions drawn by base(i) and head(i).
template <class Base, class Head>
void units_of(int pairs, int k, Base base, Head head, std::vector<RunResult>& b, std::vector<RunResult>& h) {
  for (int p = 0; p < pairs; ++p)
    for (int side = 0; side < 2; ++side) {
      std::vector<RunResult> executions;
      for (int i = 0; i < k; ++i) {
        RunResult e;
        const double v = side == 0 ? base(p * k + i) : head(p * k + i);
        e.benchmarks = {{"BenchmarkSum64/4KB-2", "xx", 1000, {{"ns/op", 4096e3 / v}, {"MB/s", v}}}};
        e.benchmark_higher_better = {"MB/s"};
        executions.push_back(e);
      }
      RunResult u = merge_executions(executions);
      u.index = p + 1;
      u.variant = side == 0 ? "base" : "head";
      (side == 0 ? b : h).push_back(u);
    }
}

const BenchmarkMetricComparison& metric(const BenchmarkComparison& c, const std::string& unit) {
  for (const auto& m : c.metrics)
    if (m.unit == unit) return m;
  throw std::runtime_error("no " + unit);
}

CompareOptions band5() {
  CompareOptions o;
  o.thresholds.defaults = {0.05, 0.05};
  return o;
}

// Issue 54's case: each process at one of two speeds; the head's fast mode 0.88x, its slow mode
// 1.06x (MB/s). The fastest execution of a unit sees the fast mode alone (0.88x: a regression);
// the modes moved apart, so every mode decides, and the report has each mode's share and change.
TEST(BenchmarkModes, ModesMovingApartAreDecidedOverEveryMode) {
  std::vector<RunResult> b, h;
  std::mt19937_64 g(7);
  auto draw = [&](double fast, double slow) {
    return [&g, fast, slow](int) {
      const bool is_slow = std::uniform_real_distribution<double>(0, 1)(g) < 0.5;
      return (is_slow ? slow : fast) * std::exp(std::normal_distribution<double>(0, 0.03)(g));
    };
  };
  units_of(10, 5, draw(631, 335), draw(631 * 0.88, 335 * 1.06), b, h);
  const BenchmarkComparison c = estimate_benchmarks(b, h, band5(), true, SpeedFactors{});
  for (const char* unit : {"MB/s", "ns/op"}) {
    const auto& m = metric(c, unit);
    SCOPED_TRACE(unit);
    ASSERT_TRUE(m.modes.found());
    EXPECT_TRUE(m.modes.base_found && m.modes.head_found);
    ASSERT_EQ(m.modes.modes.size(), 2u);
    EXPECT_TRUE(m.modes.apart);
    EXPECT_EQ(m.modes.fold, BenchmarkModes::Fold::kEveryMode);
    // The fast mode first, worse-oriented: 1/0.88 worse; the slow mode 1/1.06 (better).
    EXPECT_NEAR(m.modes.modes[0].ratio, 1 / 0.88, 0.03);
    EXPECT_NEAR(m.modes.modes[1].ratio, 1 / 1.06, 0.03);
    EXPECT_NEAR(m.modes.modes[0].base_share + m.modes.modes[1].base_share, 1, 1e-9);
    EXPECT_GT(m.modes.modes[0].base_share, 0.3);
    EXPECT_NEAR(m.modes.other_ratio, 1 / 0.88, 0.03) << "the fastest fold alone: the fast mode's move";
    // Every mode: about the processes' mean, sqrt(1/0.88 * 1/1.06) = 1.034 at half and half, moved
    // by the mix each side happened to draw (50 executions a side: +-7 points of 1.9x, +-4%).
    EXPECT_GT(m.test.ratio, 0.95);
    EXPECT_LT(m.test.ratio, 1.08);
    EXPECT_LT(m.test.ci_low, 1.05) << "not a regression past the band";
  }
}

// Both modes 10% slower, the mix unchanged: they agree, so the fastest fold (the fast mode) decides
// and its precision is kept; the report says which mode it rests on.
TEST(BenchmarkModes, ModesMovingTogetherKeepTheFastestFold) {
  std::vector<RunResult> b, h;
  std::mt19937_64 g(8);
  auto draw = [&](double scale) {
    return [&g, scale](int i) { return scale * (i % 2 ? 335 : 631) * std::exp(std::normal_distribution<double>(0, 0.02)(g)); };
  };
  units_of(8, 4, draw(1), draw(1 / 1.1), b, h);
  const auto c = estimate_benchmarks(b, h, band5(), true, SpeedFactors{});
  const auto& m = metric(c, "MB/s");
  ASSERT_TRUE(m.modes.found());
  EXPECT_FALSE(m.modes.apart);
  EXPECT_EQ(m.modes.fold, BenchmarkModes::Fold::kFastestMode);
  EXPECT_NEAR(m.test.ratio, 1.1, 0.02);
  EXPECT_GT(m.test.ci_low, 1.05);
}

// Each mode unchanged, but the head's processes land in the slow one 80% of the time instead of
// half: the fastest executions read no change; every mode's fold sees the mix and decides.
TEST(BenchmarkModes, AMixThatMovedIsDecidedOverEveryMode) {
  std::vector<RunResult> b, h;
  std::mt19937_64 g(9);
  auto draw = [&](double slow_share) {
    return [&g, slow_share](int) {
      const bool is_slow = std::uniform_real_distribution<double>(0, 1)(g) < slow_share;
      return (is_slow ? 335 : 631) * std::exp(std::normal_distribution<double>(0, 0.02)(g));
    };
  };
  units_of(10, 5, draw(0.5), draw(0.8), b, h);
  const auto& m = metric(estimate_benchmarks(b, h, band5(), true, SpeedFactors{}), "MB/s");
  ASSERT_TRUE(m.modes.found());
  EXPECT_FALSE(m.modes.apart);
  EXPECT_EQ(m.modes.fold, BenchmarkModes::Fold::kEveryMode);
  // The fastest executions see only the units with no fast execution at all (0.8^5 = a third of
  // the head's): a part of the change.
  EXPECT_LT(m.modes.other_ratio, m.test.ratio - 0.05);
  EXPECT_GT(m.test.ratio, 1.1) << "the mix moved 30 points toward a mode 1.9x slower";
  EXPECT_GT(m.test.ci_low, 1.0);
}

// A process's two speeds in its CPU time per op (benchmark_cpu), its wall time per op stretched
// 1-1.8x by other processes on the CPUs, which blurs them there: the executions' modes found in
// cpu-ns/op label ns/op's too (an execution has one mode whatever the metric), so ns/op is not
// decided on its fast mode alone either.
TEST(BenchmarkModes, ModesOfCpuTimeLabelABlurredWallTime) {
  std::vector<RunResult> b, h;
  std::mt19937_64 g(11);
  auto u = [&] { return std::uniform_real_distribution<double>(0, 1)(g); };
  for (int p = 0; p < 10; ++p)
    for (int side = 0; side < 2; ++side) {
      std::vector<RunResult> executions;
      for (int i = 0; i < 5; ++i) {
        const bool slow = u() < 0.5;
        const double cpu = (slow ? 1800 * (side ? 0.94 : 1.0) : 1000 * (side ? 1.12 : 1.0)) * std::exp(gauss(0.02));
        RunResult e;
        e.benchmarks = {{"BenchmarkModes-2", "", 1000, {{"ns/op", cpu * (1 + 0.8 * u())}, {"cpu-ns/op", cpu}}}};
        executions.push_back(e);
      }
      RunResult unit = merge_executions(executions);
      unit.index = p + 1;
      unit.variant = side ? "head" : "base";
      (side ? h : b).push_back(unit);
    }
  const auto c = estimate_benchmarks(b, h, band5(), true, SpeedFactors{});
  const auto& cpu = metric(c, "cpu-ns/op");
  ASSERT_TRUE(cpu.modes.base_found && cpu.modes.head_found);
  EXPECT_TRUE(cpu.modes.apart);
  const auto& wall = metric(c, "ns/op");
  std::vector<double> pool;
  for (const auto& r : b) pool.insert(pool.end(), r.benchmarks[0].executions_of("ns/op")->begin(),
                                      r.benchmarks[0].executions_of("ns/op")->end());
  EXPECT_FALSE(find_modes(pool, 1.05).found) << "ns/op alone blurs them";
  ASSERT_TRUE(wall.modes.found()) << "labelled by cpu-ns/op's modes";
  EXPECT_EQ(wall.modes.fold, BenchmarkModes::Fold::kEveryMode);
  EXPECT_LT(wall.test.ci_low, 1.05) << "not a regression past the band on the fast mode's 1.12x";
}

// One speed, no modes: the fold is each unit's fastest execution, as before modes were looked for.
TEST(BenchmarkModes, OneSpeedKeepsTheFastestExecution) {
  std::vector<RunResult> b, h;
  std::mt19937_64 g(10);
  auto draw = [&](double v) { return [&g, v](int) { return v * std::exp(std::normal_distribution<double>(0, 0.03)(g)); }; };
  units_of(8, 5, draw(600), draw(600 / 1.08), b, h);
  const auto& m = metric(estimate_benchmarks(b, h, band5(), true, SpeedFactors{}), "MB/s");
  EXPECT_FALSE(m.modes.found());
  EXPECT_EQ(m.modes.fold, BenchmarkModes::Fold::kFastest);
  EXPECT_NEAR(m.test.ratio, 1.08, 0.03);
}

// No zero-width interval: identical values on both sides read 1.000 with an interval as wide as
// the figures' printed step (ns/op 1423 is printed whole: 1/1423), never [1.000, 1.000].
TEST(BenchmarkModes, IntervalsAreFlooredAtTheMetricsResolution) {
  std::vector<RunResult> b, h;
  for (int p = 0; p < 6; ++p)
    for (int side = 0; side < 2; ++side) {
      RunResult r;
      r.index = p + 1;
      r.variant = side ? "head" : "base";
      r.benchmarks = {{"BenchmarkHot-2", "", 100000, {{"ns/op", p % 2 ? 1423.0 : 1424.0}}}};
      (side ? h : b).push_back(r);
    }
  const auto& m = metric(estimate_benchmarks(b, h, band5(), true, SpeedFactors{}), "ns/op");
  ASSERT_TRUE(m.in_family);
  EXPECT_NEAR(m.test.ratio, 1.0, 1e-9);
  EXPECT_LE(m.test.ci_low, 1 - 0.99 / 1424);
  EXPECT_GE(m.test.ci_high, 1 + 0.99 / 1424);
}

}  // namespace
}  // namespace gate::stats
