// True time without root: the calibration's summary of rounds, the result file's true-time and
// calibration fields through JSON, the counters-to-result bridge, and the report lines.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "report/true_time_section.hpp"
#include "truetime/probe_cost.hpp"
#include "truetime/true_time.hpp"

namespace gate {
namespace {

ProbeCalibration sample_calibration() {
  ProbeCalibration c;
  c.present = true;
  c.entry_jcc_full = {1200, 1100, 1300};
  c.entry_first_full = {4600, 4500, 4900};
  c.return_full = {4100, 4000, 4300};
  c.bias_jcc = {630, 620, 650};
  c.bias_first = {900, 880, 950};
  c.rounds = 5;
  c.measured_at = "2026-11-23T01:00:00Z";
  c.kernel = "6.18.0";
  c.gate_version = "0.1.0";
  return c;
}

TEST(Calibration, SummarizeTakesTheMedianAndTheRangeOfRounds) {
  const CostFigure f = truetime::summarize({5.0, 1.0, 3.0, 9.0, 4.0});
  EXPECT_DOUBLE_EQ(f.median_ns, 4.0);
  EXPECT_DOUBLE_EQ(f.low_ns, 1.0);
  EXPECT_DOUBLE_EQ(f.high_ns, 9.0);
  EXPECT_DOUBLE_EQ(truetime::summarize({2.0, 4.0}).median_ns, 3.0);
  EXPECT_DOUBLE_EQ(truetime::summarize({}).median_ns, 0.0);
}

TEST(Calibration, CacheTextRoundTripsAndRejectsOtherFiles) {
  const ProbeCalibration c = sample_calibration();
  const ProbeCalibration back = calibration_from_json_text(calibration_to_json_text(c), "x.json");
  EXPECT_TRUE(back.present);
  EXPECT_DOUBLE_EQ(back.return_full.high_ns, 4300);
  EXPECT_DOUBLE_EQ(back.bias_first.median_ns, 900);
  EXPECT_EQ(back.rounds, 5);
  EXPECT_EQ(back.kernel, "6.18.0");
  EXPECT_THROW(calibration_from_json_text("{\"schema\":\"gate.result\"}", "x.json"), Error);
  EXPECT_THROW(calibration_from_json_text("not json", "x.json"), Error);
}

TEST(Calibration, CostsForTheKernelAreTheMediansAndZeroWithoutCalibration) {
  const auto k = truetime::costs_from(sample_calibration());
  EXPECT_DOUBLE_EQ(k.entry_jcc_full_ns, 1200);
  EXPECT_DOUBLE_EQ(k.return_full_ns, 4100);
  EXPECT_DOUBLE_EQ(k.bias_jcc_ns, 630);
  EXPECT_FALSE(truetime::costs_from(ProbeCalibration{}).any());
}

ResultFile result_with_true_time() {
  ResultFile r;
  r.context.calibration = sample_calibration();
  r.functions.push_back(FunctionInfo{.id = 0, .name = "main.parent"});
  r.functions.push_back(FunctionInfo{.id = 1, .name = "main.helper"});
  RunResult run;
  run.index = 1;
  probe::FunctionCounters parent;
  parent.calls = 2;
  parent.sum_ns = 40'000;
  parent.raw_sum_ns = 60'000;
  parent.descendants = 4;
  parent.self_sum_ns = 30'000;
  parent.self_buckets = {{LatencyHistogram::bucket_of(15'000), 2}};
  probe::FunctionCounters helper;
  helper.calls = 4;
  helper.sum_ns = 10'000;
  helper.raw_sum_ns = 12'000;
  helper.self_sum_ns = 10'000;
  helper.callers = {{0, 4, 10'000}};
  for (const auto* c : {&parent, &helper}) {
    FunctionRun f;
    f.name = c == &parent ? "main.parent" : "main.helper";
    f.calls = c->calls;
    f.sum_ns = c->sum_ns;
    f.histogram.add(c->sum_ns / c->calls, c->calls);
    f.min_ns = f.max_ns = c->sum_ns / c->calls;
    f.true_time = truetime::true_time_of(*c, r.functions);
    run.functions.push_back(f);
  }
  run.lost_call_edges = 3;
  r.runs.push_back(run);
  return r;
}

TEST(TrueTimeResult, FieldsSurviveTheResultJson) {
  const ResultFile r = result_with_true_time();
  const ResultFile back = result_from_json_text(result_to_json_text(r), "r.json");
  const FunctionRun* p = back.runs.at(0).find("main.parent");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->true_time.present);
  EXPECT_EQ(p->true_time.raw_sum_ns, 60'000u);
  EXPECT_EQ(p->true_time.descendants, 4u);
  EXPECT_EQ(p->true_time.self_sum_ns, 30'000u);
  EXPECT_EQ(p->true_time.self_histogram.count(), 2u);
  EXPECT_TRUE(back.context.calibration.present);
  EXPECT_DOUBLE_EQ(back.context.calibration.entry_jcc_full.low_ns, 1100);
  const FunctionRun* h = back.runs.at(0).find("main.helper");
  ASSERT_EQ(h->true_time.callers.size(), 1u);
  EXPECT_EQ(h->true_time.callers[0].name, "main.parent");
  EXPECT_EQ(h->true_time.callers[0].calls, 4u);
  EXPECT_EQ(h->true_time.callers[0].sum_ns, 10'000u);
  EXPECT_EQ(back.runs[0].lost_call_edges, 3u);
}

// Schema 2 keeps true time as columns: a caller edge pointing outside the function table, or a
// self-time column cut short, is an error naming the column, never a silently wrong call graph.
TEST(TrueTimeResult, BrokenTrueTimeColumnsAreRejected) {
  const std::string text = result_to_json_text(result_with_true_time());
  const std::string edges = "\"caller_edges\":[0,4,10000]";
  ASSERT_NE(text.find(edges), std::string::npos) << text;
  std::string beyond = text;
  beyond.replace(beyond.find(edges), edges.size(), "\"caller_edges\":[9,4,10000]");
  try {
    result_from_json_text(beyond, "r.json");
    ADD_FAILURE() << "a caller edge beyond the table loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("caller edge"), std::string::npos) << e.what();
  }
  std::string cut = text;
  cut.replace(cut.find(edges), edges.size(), "\"caller_edges\":[0,4]");
  EXPECT_THROW(result_from_json_text(cut, "r.json"), Error);
}

TEST(TrueTimeResult, OlderResultsLoadWithoutTrueTime) {
  ResultFile r = result_with_true_time();
  r.context.calibration = {};
  for (auto& f : r.runs[0].functions) f.true_time = {};
  const ResultFile back = result_from_json_text(result_to_json_text(r), "r.json");
  EXPECT_FALSE(back.runs[0].functions[0].true_time.present);
  EXPECT_FALSE(back.context.calibration.present);
}

TEST(TrueTimeReport, SummaryIsWorstFirstWithSelfAndProbeShare) {
  const std::string s = report::render_summary(result_with_true_time());
  const auto parent = s.find("main.parent"), helper = s.find("main.helper");
  ASSERT_NE(parent, std::string::npos) << s;
  ASSERT_NE(helper, std::string::npos) << s;
  EXPECT_LT(parent, helper) << "the larger total comes first:\n" << s;
  EXPECT_NE(s.find("75.0%"), std::string::npos) << "parent self share 30/40:\n" << s;
  EXPECT_NE(s.find("33.3%"), std::string::npos) << "parent probe share (60-40)/60:\n" << s;
  EXPECT_NE(s.find("entry 1.20 us [1.10-1.30]"), std::string::npos) << s;
}

TEST(TrueTimeReport, NoticesWarnWhenOneSideIsRaw) {
  ResultFile base = result_with_true_time(), head = result_with_true_time();
  base.context.calibration = {};
  report::ReportInputs in;
  in.base = &base;
  in.head = &head;
  in.base_label = "baseline";
  const auto notes = report::true_time_notices(in);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("baseline times are raw and head times are compensated"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("return 4.10 us [4.00-4.30]"), std::string::npos) << notes[1];
  head.context.calibration = {};
  EXPECT_TRUE(report::true_time_notices(in).empty()) << "both raw: reports read as before true time";
}

// Base: parent 20 us/call (self 15, helper 5 under it); head: parent 30 us/call (self 17,
// helper 13): +10 us/call, helper +8 us (80%), self +2 us (20%).
TEST(TrueTimeReport, AttributionNamesTheCalleeThatTookTheExtraTime) {
  ResultFile base = result_with_true_time(), head = result_with_true_time();
  auto set = [](ResultFile& r, uint64_t parent_sum, uint64_t parent_self, uint64_t under) {
    auto& fns = r.runs[0].functions;
    fns[0].sum_ns = parent_sum;
    fns[0].true_time.self_sum_ns = parent_self;
    fns[1].true_time.callers.at(0).sum_ns = under;
  };
  set(base, 40'000, 30'000, 10'000);
  set(head, 60'000, 34'000, 26'000);
  const std::string line = report::attribution_line(base, head, "main.parent");
  EXPECT_EQ(line, "main.parent +10.0us/call: main.helper +8.00us (80%), self +2.00us (20%)") << line;
  // A side without true time gives no line rather than a wrong one.
  for (auto& f : base.runs[0].functions) f.true_time = {};
  EXPECT_EQ(report::attribution_line(base, head, "main.parent"), "");
}

}  // namespace
}  // namespace gate
