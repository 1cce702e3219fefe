// gate/history/queries: what the history commands ask of the store, without the CLI: the drift
// budget over every series, the commit --since pins, the change point a bisect starts from, and the
// errors that name what is missing. No root.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "history/queries.hpp"
#include "history/synthetic.hpp"

using namespace gate;
using namespace gate::history;
using gate::testing::TempDir;
using gate::testing::error_of;

namespace {

const std::string kApply = "example.com/shop/pricing.Apply", kGet = "example.com/shop.(*Store).Get";

// 12 commits c00..c11: Apply 1000 ns, then 1300 ns from c06; Get 500 ns throughout.
Store history_with_a_step(const TempDir& dir) {
  Store s = Store::open("sqlite:" + dir.path + "/h.db", true);
  for (int i = 0; i < 12; ++i) {
    gate::testing::SyntheticRun r;
    r.p50_ns = {{kApply, i < 6 ? 1000.0 : 1300.0}, {kGet, 500.0}};
    r.seed = static_cast<uint64_t>(i + 1);
    const ResultFile f = gate::testing::synthetic_result(r);
    char commit[8], time[32];
    snprintf(commit, sizeof commit, "c%02d0000", i);
    snprintf(time, sizeof time, "2026-11-%02dT12:00:00Z", i + 1);
    s.add(f, result_to_json_text(f), {commit, "", "main", time}, "synthetic.json");
  }
  return s;
}

}  // namespace

TEST(HistoryQueries, DriftSinceAPinnedCommitIsOverBudgetOnlyWhereTheStepIs) {
  TempDir dir;
  Store s = history_with_a_step(dir);
  const LoadedRuns runs = load_runs(s, true);
  const DriftCheck d = check_drift(s, runs, "c000", 0.10, {"p50"});
  EXPECT_EQ(d.since, "c000000");
  ASSERT_EQ(d.drifts.size(), 2u);
  EXPECT_TRUE(d.over);
  for (const auto& x : d.drifts) {
    if (x.function == kApply) {
      EXPECT_NEAR(x.ratio, 1.3, 0.05);
      EXPECT_TRUE(x.over);
    } else {
      EXPECT_NEAR(x.ratio, 1.0, 0.05);
      EXPECT_FALSE(x.over);
    }
  }
  const auto j = drift_document(d, runs);
  EXPECT_EQ(j["schema"], "gate.history.drift");
  EXPECT_EQ(j["over_budget"], true);
  EXPECT_EQ(j["drifts"].size(), 2u);
  // From c06 on nothing moved: within the budget.
  EXPECT_FALSE(check_drift(s, runs, "c060", 0.10, {"p50"}).over);
}

TEST(HistoryQueries, AnUnknownRefIsNamedWithTheFix) {
  TempDir dir;
  Store s = history_with_a_step(dir);
  const std::string e = error_of([&] { pinned_commit(s, "no-such-ref-xyz", dir.path); });
  EXPECT_NE(e.find("--since no-such-ref-xyz"), std::string::npos) << e;
  EXPECT_NE(e.find("neither a commit in the history nor a git ref"), std::string::npos) << e;
}

TEST(HistoryQueries, LatestChangeIsTheStepAndUnknownFunctionsAreNamed) {
  TempDir dir;
  Store s = history_with_a_step(dir);
  const LoadedRuns runs = load_runs(s, true);
  const Change c = latest_change(runs, kApply);
  EXPECT_EQ(c.commit, "c060000");
  EXPECT_EQ(c.before_commit, "c050000");
  EXPECT_NE(error_of([&] { latest_change(runs, kGet); }).find("shows no change point"), std::string::npos);
  EXPECT_NE(error_of([&] { latest_change(runs, "nope.F"); }).find("is not in the history"), std::string::npos);
  EXPECT_NE(error_of([&] { trends(runs, {"nope.F"}, {"p50"}, {}); }).find("function nope.F"), std::string::npos);
  const auto t = trends(runs, {kApply}, {"p50", "p99"}, {});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].series.size(), 2u);
  EXPECT_FALSE(t[0].changes.empty());
}
