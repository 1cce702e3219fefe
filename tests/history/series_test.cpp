// Series from stored runs with the machine's speed taken out: on a runner whose speed swings run
// to run (sd 15%, common to every function), a 1.13x step of one function among eight is found
// at its commit once normalized, and no other function gets a change point.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "history/series.hpp"

using namespace gate::history;

namespace {

std::map<std::string, std::vector<StoredRun>> swinging_machine(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0, 1);
  std::map<std::string, std::vector<StoredRun>> out;
  for (int c = 1; c <= 16; ++c) {
    for (int run = 1; run <= 3; ++run) {
      const double machine = std::exp(0.15 * n01(rng));  // the whole run slower or faster
      for (int f = 0; f < 8; ++f) {
        const std::string name = "f" + std::to_string(f);
        StoredRun r;
        r.commit = "c" + std::string(c < 10 ? "0" : "") + std::to_string(c);
        r.time = "t" + r.commit;
        r.machine = "m";
        r.key = "k" + r.commit;
        r.run = run;
        r.calls = 1000;
        const double step = (f == 0 && c >= 9) ? 1.13 : 1.0;
        r.p50_ns = 1000.0 * (f + 1) * step * machine * std::exp(0.02 * n01(rng));
        r.p90_ns = r.p50_ns * 1.5;
        r.p99_ns = r.p50_ns * 3;
        out[name].push_back(r);
      }
    }
  }
  return out;
}

}  // namespace

TEST(HistorySeries, SpeedNormalizationFindsTheOneStepOnASwingingMachine) {
  int raw_exact = 0, normalized_exact = 0, normalized_others = 0;
  const int trials = 20;
  for (int t = 0; t < trials; ++t) {
    auto runs = swinging_machine(100 + t);
    const auto raw_series = build_series("f0", runs["f0"], {"p50"});
    const auto raw_changes = changes_in(raw_series.at(0), {});
    raw_exact += raw_changes.size() == 1 && raw_changes[0].commit == "c09";
    EXPECT_TRUE(normalize_speed(runs).empty());  // every machine could be normalized
    const auto norm = changes_in(build_series("f0", runs["f0"], {"p50"}).at(0), {});
    normalized_exact += norm.size() == 1 && norm[0].commit == "c09";
    for (int f = 1; f < 8; ++f)
      normalized_others += changes_in(build_series("f" + std::to_string(f), runs["f" + std::to_string(f)], {"p50"}).at(0), {}).size();
  }
  std::printf("1.13x step, machine swings sd 15%%: exactly c09 raw %d/%d, speed-normalized %d/%d; change points in the "
              "7 unchanged functions, normalized: %d in %d series\n",
              raw_exact, trials, normalized_exact, trials, normalized_others, 7 * trials);
  EXPECT_GE(normalized_exact, trials - 1);
  EXPECT_LE(normalized_others, 7 * trials / 10);
  EXPECT_LT(raw_exact, normalized_exact);
}

TEST(HistorySeries, TooFewFunctionsStayRaw) {
  auto runs = swinging_machine(1);
  for (int f = 4; f < 8; ++f) runs.erase("f" + std::to_string(f));  // 4 functions: fewer than 5
  const double before = runs["f0"][0].p50_ns;
  EXPECT_EQ(normalize_speed(runs), std::vector<std::string>{"m"});
  EXPECT_EQ(runs["f0"][0].p50_ns, before);
}
