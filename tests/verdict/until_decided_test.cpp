// measure_until_decided on fake sides and a fake judge: how many runs each side gets, in which
// order, when the loop stops (decided, max_runs, a failed run), and what it logs. No root.
#include "verdict/until_decided.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <tuple>
#include <vector>

#include "verdict/instruments.hpp"

namespace gate::verdict {
namespace {

// A side that records the order of its runs in a shared trace and fails at run `fail_at` (0: never).
struct FakeSide : Side {
  FakeSide(char name, std::string& trace, int fail_at = 0) : name(name), trace(trace), fail_at(fail_at) {}
  bool add_run() override {
    if (failed_) return false;
    if (fail_at && runs + 1 == fail_at) {
      failed_ = true;
      trace += static_cast<char>(name - 'A' + 'a');  // lower case: a failed run
      return false;
    }
    ++runs;
    trace += name;
    return true;
  }
  bool failed() const override { return failed_; }
  int runs_done() const override { return runs; }
  char name;
  std::string& trace;
  int fail_at;
  int runs = 0;
  bool failed_ = false;
};

// A comparison with one quantile that more runs could decide, or none.
stats::Comparison comparison(bool undecided) {
  stats::Comparison c;
  stats::FunctionComparison f;
  f.name = "main.f";
  stats::QuantileComparison q;
  q.more_runs_would_help = undecided;
  f.quantiles.push_back(q);
  c.functions.push_back(f);
  return c;
}

// Undecided until the side has `decided_at` runs; counts its calls and the run counts it saw.
struct FakeJudge {
  const Side& side;
  int decided_at;
  std::vector<int> seen;
  Judge fn() {
    return [this] {
      seen.push_back(side.runs_done());
      return comparison(side.runs_done() < decided_at);
    };
  }
};

// gate check's shape: one side, decided once it has `decided_at` runs (fail_at: see FakeSide).
struct CheckLoop {
  std::string trace;
  FakeSide head;
  OneSide schedule{head};
  FakeJudge judge;
  std::vector<std::string> log;
  explicit CheckLoop(int decided_at, int fail_at = 0) : head('H', trace, fail_at), judge{head, decided_at} {}
  stats::Comparison run(Budget b) {
    return measure_until_decided(schedule, judge.fn(), b, [this](const std::string& l) { log.push_back(l); });
  }
};

TEST(UntilDecided, DecidedAfterTheFirstRunsAddsNone) {
  CheckLoop t(3);
  const auto c = t.run({3, 10});
  EXPECT_EQ(t.trace, "HHH");
  EXPECT_EQ(t.judge.seen, (std::vector<int>{3}));
  EXPECT_FALSE(c.need_more_runs());
  EXPECT_TRUE(t.log.empty());
}

TEST(UntilDecided, AddsOneRunAtATimeUntilDecided) {
  CheckLoop t(5);
  const auto c = t.run({3, 10});
  EXPECT_EQ(t.head.runs, 5);
  EXPECT_EQ(t.judge.seen, (std::vector<int>{3, 4, 5}));
  EXPECT_FALSE(c.need_more_runs());
  ASSERT_EQ(t.log.size(), 2u);
  EXPECT_EQ(t.log[0], "some verdicts are inconclusive: one more run (4/10)");
  EXPECT_EQ(t.log[1], "some verdicts are inconclusive: one more run (5/10)");
}

// A test predicted to need far more runs than max_runs allows is given up on, but not before half
// of max_runs: at the first looks one slow pair can put the noise estimate several times too high.
TEST(UntilDecided, GivesUpOnAHopelessTestOnlyFromHalfOfMaxRuns) {
  std::string trace;
  FakeSide head('H', trace);
  OneSide schedule{head};
  const Judge hopeless = [] {
    auto c = comparison(true);
    c.functions[0].quantiles[0].units_to_decide = 1000;  // beyond 4 x max_runs
    return c;
  };
  measure_until_decided(schedule, hopeless, {3, 20}, [](const std::string&) {});
  EXPECT_EQ(head.runs, 10) << "given up on at half of max_runs (20), not at the first look (3)";
  std::string trace2;
  FakeSide head2('H', trace2);
  OneSide schedule2{head2};
  const Judge reachable = [] {
    auto c = comparison(true);
    c.functions[0].quantiles[0].units_to_decide = 30;  // within 4 x max_runs: worth going on
    return c;
  };
  measure_until_decided(schedule2, reachable, {3, 20}, [](const std::string&) {});
  EXPECT_EQ(head2.runs, 20);
}

TEST(UntilDecided, StopsAtMaxRunsStillUndecided) {
  CheckLoop t(1000);
  const auto c = t.run({2, 6});
  EXPECT_EQ(t.head.runs, 6);
  EXPECT_EQ(t.judge.seen, (std::vector<int>{2, 3, 4, 5, 6}));
  EXPECT_TRUE(c.need_more_runs()) << "the last comparison is returned as it is: inconclusive";
}

TEST(UntilDecided, MaxRunsBelowRunsMeansRuns) {
  CheckLoop t(1000);
  t.run({4, 0});
  EXPECT_EQ(t.head.runs, 4);
  EXPECT_EQ(t.judge.seen, (std::vector<int>{4}));
}

TEST(UntilDecided, AFailedFirstRoundIsNeverCompared) {
  CheckLoop t(1000, 2);
  const auto c = t.run({5, 10});
  EXPECT_EQ(t.trace, "Hh") << "no run after the failed one";
  EXPECT_TRUE(t.judge.seen.empty());
  EXPECT_TRUE(c.functions.empty());
}

TEST(UntilDecided, AFailedAddedRunEndsTheLoop) {
  CheckLoop t(1000, 4);
  const auto c = t.run({3, 10});
  EXPECT_EQ(t.trace, "HHHh");
  EXPECT_EQ(t.judge.seen, (std::vector<int>{3}));
  EXPECT_TRUE(c.need_more_runs()) << "the comparison before the failure";
}

TEST(UntilDecided, PairsAlternateInASeededOrder) {
  auto order = [](uint64_t seed) {
    std::string trace;
    FakeSide base('A', trace), head('B', trace);
    InterleavedPairs s(base, head, seed);
    FakeJudge judge{head, 1000};
    measure_until_decided(s, judge.fn(), {8, 8}, nullptr);
    EXPECT_EQ(base.runs, 8);
    EXPECT_EQ(head.runs, 8);
    return trace;
  };
  const std::string one = order(1);
  EXPECT_EQ(one, order(1)) << "the same seed gives the same order";
  EXPECT_NE(one, order(2));
  int base_first = 0;
  for (size_t i = 0; i < one.size(); i += 2) {
    EXPECT_NE(one[i], one[i + 1]) << "each pair holds one run of each side: " << one;
    base_first += one[i] == 'A';
  }
  EXPECT_GT(base_first, 0) << one;
  EXPECT_LT(base_first, 8) << one;
}

TEST(UntilDecided, PairsAreAddedWhileUndecidedAndNamedSo) {
  std::string trace;
  FakeSide base('A', trace), head('B', trace);
  InterleavedPairs s(base, head, 7);
  FakeJudge judge{head, 4};
  std::vector<std::string> log;
  measure_until_decided(s, judge.fn(), {2, 10}, [&](const std::string& l) { log.push_back(l); });
  EXPECT_EQ(base.runs, 4);
  EXPECT_EQ(head.runs, 4);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "some verdicts are inconclusive: one more pair of runs (3/10)");
}

TEST(UntilDecided, AFailedSideStopsThePairAndTheLoop) {
  std::string trace;
  FakeSide base('A', trace, 3), head('B', trace);
  InterleavedPairs s(base, head, 1);
  FakeJudge judge{head, 1000};
  const auto c = measure_until_decided(s, judge.fn(), {5, 10}, nullptr);
  EXPECT_EQ(base.runs, 2);
  EXPECT_TRUE(judge.seen.empty());
  EXPECT_TRUE(c.functions.empty());
  EXPECT_EQ(trace.back(), 'a') << "nothing runs after the failure: " << trace;
}


// A comparison whose one p50 test is a suspect: inconclusive, its estimate `ratio` past a 10%
// threshold, predicted to decide at `to_decide` units (0: unknown).
stats::Comparison suspect_comparison(double ratio, int to_decide) {
  stats::Comparison c = comparison(true);
  auto& q = c.functions[0].quantiles[0];
  q.name = "p50";
  q.band = {0.10, 0.10};
  q.ratio = ratio;
  q.verdict = stats::Verdict::kSuspect;
  q.units_to_decide = to_decide;
  return c;
}

// Suspect until the side has `decided_at` runs, with `to_decide` as its prediction.
struct SuspectJudge {
  const Side& side;
  int decided_at;
  int to_decide;
  double ratio = 1.13;
  Judge fn() {
    return [this] { return side.runs_done() < decided_at ? suspect_comparison(ratio, to_decide) : comparison(false); };
  }
};

struct SuspectLoop {
  std::string trace;
  FakeSide head{'H', trace};
  OneSide schedule{head};
  SuspectJudge judge;
  std::vector<std::string> log;
  SuspectLoop(int decided_at, int to_decide) : judge{head, decided_at, to_decide} {}
  stats::Comparison run(Budget b) {
    return measure_until_decided(schedule, judge.fn(), b, [this](const std::string& l) { log.push_back(l); });
  }
};

// Issue 34: a regression that needs ~20 pairs is measured past max_runs 10, up to suspect_max_runs,
// says so in the log and in the comparison, and stops once decided.
TEST(UntilDecided, GoesPastMaxRunsForASuspectThatLooksDecidable) {
  SuspectLoop t(16, 18);
  const auto c = t.run({5, 10, 20});
  EXPECT_EQ(t.head.runs, 16);
  EXPECT_EQ(c.extension.max_units, 10);
  EXPECT_EQ(c.extension.units, 16);
  EXPECT_EQ(c.extension.tests, (std::vector<std::string>{"main.f p50"}));
  ASSERT_FALSE(t.log.empty());
  EXPECT_NE(t.log.back().find("past max_runs (10) for main.f p50"), std::string::npos) << t.log.back();
  EXPECT_NE(t.log.back().find("(16/20)"), std::string::npos) << t.log.back();
}

TEST(UntilDecided, StopsAtSuspectMaxRunsStillUndecided) {
  SuspectLoop t(100, 18);
  const auto c = t.run({5, 10, 20});
  EXPECT_EQ(t.head.runs, 20);
  EXPECT_EQ(c.extension.units, 20);
  EXPECT_EQ(c.functions[0].quantiles[0].verdict, stats::Verdict::kSuspect);
}

// Not past max_runs when the prediction lies beyond suspect_max_runs, is unknown, when the estimate
// is inside the band (inconclusive about "unchanged" only), or when no extension is planned.
TEST(UntilDecided, StopsAtMaxRunsWhenTheSuspectWouldNotDecideInTime) {
  for (auto [to_decide, ratio, b] : {std::tuple{40, 1.13, Budget{5, 10, 20}}, std::tuple{0, 1.13, Budget{5, 10, 20}},
                                     std::tuple{12, 1.05, Budget{5, 10, 20}}, std::tuple{12, 1.13, Budget{5, 10, 0}},
                                     std::tuple{12, 1.13, Budget{5, 10, 10}}}) {
    SuspectLoop t(100, to_decide);
    t.judge.ratio = ratio;
    const auto c = t.run(b);
    EXPECT_EQ(t.head.runs, 10) << to_decide << " " << ratio << " " << b.suspect_max_runs;
    EXPECT_EQ(c.extension.units, 0);
  }
}

TEST(UntilDecided, LastLookCoversTheExtension) {
  EXPECT_EQ((Budget{5, 10, 20}).last(), 20);
  EXPECT_EQ((Budget{5, 10, 0}).last(), 10);
  EXPECT_EQ((Budget{5, 0, 0}).last(), 5);
}


// A side with units: executions go into a trace (upper case), a closed unit adds '|'; each
// execution lasts `seconds`.
struct UnitSide : Side {
  UnitSide(char name, std::string& trace, double seconds) : name(name), trace(trace), seconds(seconds) {}
  bool add_run() override {
    for (int e = 0; e < k; ++e) add_execution();
    return close_unit();
  }
  bool add_execution() override {
    trace += name;
    ++open;
    ++executions;
    return true;
  }
  bool close_unit() override {
    if (open == 0) return true;
    units.push_back(open);
    open = 0;
    return true;
  }
  bool failed() const override { return false; }
  int runs_done() const override { return static_cast<int>(units.size()); }
  double last_execution_seconds() const override { return seconds; }
  void set_executions_per_unit(int n) override { k = n; }
  int executions_per_unit() const override { return k; }
  // Sampled executions: lower case in the trace; a trial (not kept) as '?'.
  int sampled_per_unit() const override { return sampled; }
  void set_sampled_per_unit(int n) override { sampled = n; }
  bool add_sampled_execution(bool keep) override {
    trace += keep ? static_cast<char>(name - 'A' + 'a') : '?';
    return true;
  }
  char name;
  std::string& trace;
  double seconds;
  int k = 1, open = 0, executions = 0, sampled = 0;
  std::vector<int> units;
};

TEST(UntilDecided, UnitsArePlannedFromTheFirstPairAndAlternateInside) {
  std::string trace;
  UnitSide base('A', trace, 0.3), head('B', trace, 0.3);
  InterleavedPairs s(base, head, 3, 1.0);
  FakeJudge judge{head, 1000};
  std::vector<std::string> log;
  measure_until_decided(s, judge.fn(), {5, 5}, [&](const std::string& l) { log.push_back(l); });
  // ceil(1.0 / 0.3) = 4 executions a unit, the first unit included.
  EXPECT_EQ(base.units, (std::vector<int>{4, 4, 4, 4, 4}));
  EXPECT_EQ(head.units, (std::vector<int>{4, 4, 4, 4, 4}));
  ASSERT_EQ(trace.size(), 40u);
  int base_first = 0;
  for (size_t i = 0; i < trace.size(); i += 2) {
    EXPECT_NE(trace[i], trace[i + 1]) << "each slot runs one execution of each side: " << trace;
    base_first += trace[i] == 'A';
  }
  EXPECT_GT(base_first, 2) << "the order inside a unit is drawn per slot: " << trace;
  EXPECT_LT(base_first, 18) << trace;
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.front(), "unit 1/5 (4 executions per side)");
}

TEST(UntilDecided, LongExecutionsMakeUnitsOfOne) {
  std::string trace;
  UnitSide base('A', trace, 1.5), head('B', trace, 1.2);
  InterleavedPairs s(base, head, 3, 1.0);
  FakeJudge judge{head, 1000};
  measure_until_decided(s, judge.fn(), {3, 3}, nullptr);
  EXPECT_EQ(base.units, (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(s.round_name(), "pair of runs");
}

// calls: auto removes probes after the first pair (AfterFirstRound): the executions get shorter,
// and replan() sizes the following units from them, so that a unit stays min_unit_seconds long.
TEST(UntilDecided, ReplanSizesTheUnitsAfterTheProbesGo) {
  std::string trace;
  UnitSide base('A', trace, 1.5), head('B', trace, 1.5);  // probed: one execution a unit
  InterleavedPairs pairs(base, head, 3, 1.0);
  std::vector<std::string> log;
  AfterFirstRound s(pairs, [&] {
    base.seconds = head.seconds = 0.3;  // without the probes
    pairs.replan([&](const std::string& l) { log.push_back(l); });
    return false;
  });
  FakeJudge judge{head, 1000};
  measure_until_decided(s, judge.fn(), {4, 4}, nullptr);
  EXPECT_EQ(base.units, (std::vector<int>{1, 4, 4, 4}));
  EXPECT_EQ(head.units, (std::vector<int>{1, 4, 4, 4}));
  ASSERT_EQ(log.size(), 1u) << "said once, when the units are planned again";
  EXPECT_NE(log.front().find("4 executions per unit"), std::string::npos) << log.front();
}

TEST(UntilDecided, ReplanGrowsTheUnitsToTheSamplesFloor) {
  std::string trace;
  UnitSide base('A', trace, 0.6), head('B', trace, 0.6);  // 1 s target: two executions a unit
  InterleavedPairs pairs(base, head, 3, 1.0);
  std::vector<std::string> log;
  AfterFirstRound s(pairs, [&] {
    pairs.replan([&](const std::string& l) { log.push_back(l); }, 7);
    return false;
  });
  FakeJudge judge{head, 1000};
  measure_until_decided(s, judge.fn(), {3, 3}, nullptr);
  EXPECT_EQ(base.units, (std::vector<int>{2, 7, 7}));
  EXPECT_EQ(head.units, (std::vector<int>{2, 7, 7}));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log.front().find("7 executions per unit"), std::string::npos) << log.front();
  EXPECT_NE(log.front().find("sized by samples"), std::string::npos) << log.front();
}

TEST(UntilDecided, ReplanKeepsTheTimeTargetWhenItAsksMore) {
  std::string trace;
  UnitSide base('A', trace, 0.1), head('B', trace, 0.1);  // ten executions a second
  InterleavedPairs pairs(base, head, 3, 1.0);
  AfterFirstRound s(pairs, [&] {
    pairs.replan(nullptr, 4);
    return false;
  });
  FakeJudge judge{head, 1000};
  measure_until_decided(s, judge.fn(), {3, 3}, nullptr);
  EXPECT_EQ(base.units, (std::vector<int>{10, 10, 10}));
}

// The first pair times one bare execution a side (a trial: its samples are dropped); from the
// second pair on each unit pair runs its sampled executions after the probed ones, alternated.
// The first pair is then a pilot: the budget's 3 pairs are the 3 with sampled executions.
TEST(UntilDecided, SampledExecutionsFollowTheProbedOnesFromTheSecondPair) {
  std::string trace;
  UnitSide base('A', trace, 0.6), head('B', trace, 0.6);  // two probed executions a unit
  InterleavedPairs pairs(base, head, 3, 1.0);
  pairs.trial_sampled();
  AfterFirstRound s(pairs, [&] {
    EXPECT_EQ(std::count(trace.begin(), trace.end(), '?'), 2) << trace << ": one trial a side, in the first pair";
    base.set_sampled_per_unit(3);
    head.set_sampled_per_unit(3);
    return true;
  });
  FakeJudge judge{head, 1000};
  measure_until_decided(s, judge.fn(), {3, 3}, nullptr);
  EXPECT_EQ(base.units, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(s.rounds_done(), 3) << "the pilot is not one of the budget's pairs";
  ASSERT_EQ(trace.size(), 4 * 4 + 2 + 3 * 6u) << trace;
  EXPECT_EQ(std::count(trace.begin(), trace.end(), '?'), 2) << trace;
  // Pair 2: four probed executions (A and B alternating), then six sampled ones (a and b).
  const std::string pair2 = trace.substr(6, 10);
  EXPECT_EQ(std::count(pair2.begin(), pair2.begin() + 4, 'A'), 2) << pair2;
  EXPECT_EQ(std::count(pair2.begin() + 4, pair2.end(), 'a'), 3) << pair2;
  EXPECT_EQ(std::count(pair2.begin() + 4, pair2.end(), 'b'), 3) << pair2;
}

TEST(UntilDecided, ReplanLeavesFixedUnitsAlone) {
  std::string trace;
  UnitSide base('A', trace, 1.5), head('B', trace, 1.5);
  InterleavedPairs pairs(base, head, 3, 1.0, 2);  // a service's rounds: fixed
  AfterFirstRound s(pairs, [&] {
    base.seconds = head.seconds = 0.1;
    pairs.replan();
    return false;
  });
  FakeJudge judge{head, 1000};
  measure_until_decided(s, judge.fn(), {3, 3}, nullptr);
  EXPECT_EQ(base.units, (std::vector<int>{2, 2, 2}));
}

TEST(UntilDecided, NoUnitTargetKeepsWholeRuns) {
  std::string trace;
  UnitSide base('A', trace, 0.01), head('B', trace, 0.01);
  InterleavedPairs s(base, head, 3, 0);
  FakeJudge judge{head, 1000};
  measure_until_decided(s, judge.fn(), {3, 3}, nullptr);
  EXPECT_EQ(base.units, (std::vector<int>{1, 1, 1}));
}

}  // namespace
}  // namespace gate::verdict
