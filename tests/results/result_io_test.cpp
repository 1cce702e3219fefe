// The result format: JSON round trip keeps every number; bad files give clear errors; writes are
// atomic (a failed write leaves the old file as it was).
#include <cmath>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.hpp"
#include "results/result.hpp"
#include "many_functions.hpp"

namespace gate {
namespace {

namespace fs = std::filesystem;

ResultFile sample() {
  ResultFile r;
  r.context.binary_path = "/bin/shop";
  r.context.build_id = "abc";
  r.context.go_version = "go1.21.13";
  r.context.kernel = "6.18";
  r.context.attach_mode = "uprobe_multi";
  FunctionInfo f;
  f.id = 0;
  f.name = "example.com/shop.(*Cart).Checkout";
  f.entry_placement = "stack-check-jump";
  f.entry_instruction = "jbe 0x4a1234";
  f.entry_cost_class = "emulated";
  f.return_addresses = {0x4a1300, 0x4a1380};
  r.functions.push_back(f);
  for (int i = 1; i <= 3; ++i) {
    RunResult run;
    run.index = i;
    FunctionRun fr;
    fr.name = f.name;
    for (uint64_t v = 1000; v < 2000; v += 7 * i) {
      fr.histogram.add(v);
      fr.sum_ns += v;
    }
    fr.calls = fr.histogram.count();
    fr.min_ns = 1000;
    fr.max_ns = 1999;
    fr.unmatched_entries = i;
    run.functions.push_back(fr);
    r.runs.push_back(run);
  }
  return r;
}

TEST(ResultIo, RoundTripKeepsEverything) {
  const ResultFile a = sample();
  const ResultFile b = result_from_json_text(result_to_json_text(a), "mem");
  ASSERT_EQ(b.runs.size(), 3u);
  EXPECT_EQ(b.context.go_version, "go1.21.13");
  EXPECT_EQ(b.functions[0].return_addresses, a.functions[0].return_addresses);
  EXPECT_EQ(b.functions[0].entry_instruction, "jbe 0x4a1234");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b.runs[i].functions[0].histogram, a.runs[i].functions[0].histogram);
    EXPECT_EQ(b.runs[i].functions[0].sum_ns, a.runs[i].functions[0].sum_ns);
    EXPECT_EQ(b.runs[i].functions[0].unmatched_entries, a.runs[i].functions[0].unmatched_entries);
  }
}

// When in the run the calls were made: the sums survive the round trip (a result without them,
// from an older gate, reads as not known), and calls_moment turns them into a mean and a spread.
TEST(ResultIo, CallMomentsRoundTripAndReadAsMeanAndSpread) {
  ResultFile a = sample();
  FunctionRun& f = a.runs[1].functions[0];
  // Its calls at 10, 20, 30, 40, 10, ... ms: sums of the moments in 1024 ns units, squares in
  // 2^20 ns units, as the BPF side keeps them.
  ASSERT_GT(f.calls, 3u);
  f.sum_start_us = 0;
  f.sum_start_ms2 = 0;
  double sum = 0, sum2 = 0;
  for (uint64_t k = 0; k < f.calls; ++k) {
    const double ms = 10.0 * (1 + k % 4);
    const auto ns = static_cast<uint64_t>(ms * 1e6);
    f.sum_start_us += ns >> 10;
    f.sum_start_ms2 += (ns >> 20) * (ns >> 20);
    sum += ms / 1e3;
    sum2 += ms * ms / 1e6;
  }
  const double n = static_cast<double>(f.calls), mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  const ResultFile b = result_from_json_text(result_to_json_text(a), "mem");
  EXPECT_EQ(b.runs[1].functions[0].sum_start_us, f.sum_start_us);
  EXPECT_EQ(b.runs[1].functions[0].sum_start_ms2, f.sum_start_ms2);
  FunctionRun::Moment m;
  ASSERT_TRUE(b.runs[1].functions[0].calls_moment(m));
  EXPECT_NEAR(m.mean_s, mean, 0.0001);
  EXPECT_NEAR(m.sd_s, sd, 0.002);  // ~11 ms; the squares are of moments truncated to ~1 ms
  EXPECT_FALSE(b.runs[0].functions[0].calls_moment(m));  // not kept: not known
}

// exclude_preemption: the time basis and the per-run preemption counters survive the round trip;
// a file without them (older gates) reads as wall time.
TEST(ResultIo, PreemptionBasisAndCountersRoundTrip) {
  ResultFile a = sample();
  a.context.preemption_excluded = true;
  a.runs[1].preempted_calls = 17;
  a.runs[1].thread_changed_calls = 3;
  const ResultFile b = result_from_json_text(result_to_json_text(a), "mem");
  EXPECT_TRUE(b.context.preemption_excluded);
  EXPECT_EQ(b.runs[1].preempted_calls, 17u);
  EXPECT_EQ(b.runs[1].thread_changed_calls, 3u);
  EXPECT_EQ(b.runs[0].preempted_calls, 0u);
  const ResultFile c = result_from_json_text(result_to_json_text(sample()), "mem");
  EXPECT_FALSE(c.context.preemption_excluded);
}

TEST(ResultIo, QuantilesStayWithinMinMax) {
  const auto& f = sample().runs[0].functions[0];
  EXPECT_LE(f.quantile_ns(1.0), double(f.max_ns));
  EXPECT_GE(f.quantile_ns(0.0), double(f.min_ns));
}

TEST(ResultIo, InconsistentHistogramIsRejected) {
  auto j = nlohmann::json::parse(result_to_json_text(sample()));
  j["runs"][1]["functions"]["calls"][0] = 7;  // no longer the histogram's total
  try {
    result_from_json_text(j.dump(), "edited.json");
    FAIL() << "accepted a histogram that disagrees with its call count";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("edited.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("histogram holds"), std::string::npos) << e.what();
  }
}

// A function measured by samples whose calls were only counted (calls: entry) or taken from gate ab's
// first pair (its probes removed: fixed_calls_per_execution) has calls and no timed call: gate ab's
// --out-head of such a comparison must load again (gate compare, gate merge).
TEST(ResultIo, CountedUntimedFunctionRoundTrips) {
  ResultFile a = sample();
  FunctionRun& f = a.runs[1].functions[0];
  f.histogram = LatencyHistogram{};
  f.sum_ns = f.min_ns = f.max_ns = 0;
  f.calls = 534;
  f.fixed_calls_per_execution = 178;
  const ResultFile b = result_from_json_text(result_to_json_text(a), "counted.json");
  EXPECT_EQ(b.runs[1].functions[0].calls, 534u);
  EXPECT_EQ(b.runs[1].functions[0].histogram.count(), 0u);
  EXPECT_EQ(b.runs[1].functions[0].fixed_calls_per_execution, 178u);
  EXPECT_EQ(b.runs[0].functions[0].histogram, a.runs[0].functions[0].histogram);
}

// gate ab's first pair, when calls: auto took probes off after it, is a pilot: the flag survives
// the file (gate compare and gate merge leave the pair out too), and only that pair is left out.
TEST(ResultIo, PilotRunRoundTripsAndItsPairIsLeftOut) {
  ResultFile a = sample();
  a.runs[0].pilot = true;
  const std::string text = result_to_json_text(a);
  EXPECT_TRUE(nlohmann::json::parse(text)["runs"][0].value("pilot", false));
  EXPECT_FALSE(nlohmann::json::parse(text)["runs"][1].contains("pilot")) << "absent means false";
  const ResultFile b = result_from_json_text(text, "pilot.json");
  EXPECT_TRUE(b.runs[0].pilot);
  EXPECT_FALSE(b.runs[1].pilot);
  ResultFile head = sample();  // the head's first run is no pilot: the pair goes all the same
  std::vector<RunResult> base_kept, head_kept;
  ASSERT_TRUE(without_pilot_pairs(b.runs, head.runs, base_kept, head_kept));
  ASSERT_EQ(base_kept.size(), 2u);
  ASSERT_EQ(head_kept.size(), 2u);
  EXPECT_EQ(base_kept[0].index, 2);
  EXPECT_EQ(head_kept[1].index, 3);
  EXPECT_FALSE(without_pilot_pairs(head.runs, head.runs, base_kept, head_kept)) << "no pilot: nothing to copy";
  EXPECT_TRUE(base_kept.empty());
}

// gate ab's first pair keeps its trial execution's self samples (what measure: auto reads the
// counts without probes from), so that gate compare re-judges the instruments as gate ab did.
TEST(ResultIo, TrialSamplesRoundTrip) {
  ResultFile a = sample();
  a.runs[0].trial_executions = 1;
  a.runs[0].functions[0].trial_self_samples = 3;
  const std::string text = result_to_json_text(a);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["runs"][0].value("trial_executions", 0), 1);
  EXPECT_FALSE(j["runs"][1].contains("trial_executions")) << "absent means none";
  EXPECT_FALSE(j["runs"][1]["functions"].contains("trial_self_samples")) << "an all-zero column is left out";
  const ResultFile b = result_from_json_text(text, "trial.json");
  EXPECT_EQ(b.runs[0].trial_executions, 1);
  EXPECT_EQ(b.runs[0].functions[0].trial_self_samples, 3u);
  EXPECT_EQ(b.runs[1].trial_executions, 0);
  EXPECT_EQ(b.runs[1].functions[0].trial_self_samples, 0u);
}

// The sampler's own counts (issue 54 item 8): written with a sampled run, read back, absent when not
// sampled; the function column lost_samples like the other sample columns; sampled_cpu_s with
// sampled executions only.
TEST(ResultIo, SamplerCountsAndLostSamplesRoundTrip) {
  ResultFile a = sample();
  a.runs[0].sample_period_ns = 200'040;
  a.runs[0].sampler = {5871, 2, 918, 900, 5327};
  a.runs[0].cpu_s = 1.18;
  a.runs[0].sampled_executions = 2;
  a.runs[0].sampled_cpu_s = 0.75;
  a.runs[0].functions[0].lost_samples = 17;
  const std::string text = result_to_json_text(a);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["runs"][0]["sampler"]["not_to_root"], 918);
  EXPECT_FALSE(j["runs"][1].contains("sampler")) << "a run not sampled says nothing";
  EXPECT_FALSE(j["runs"][1].contains("sampled_cpu_s"));
  EXPECT_FALSE(j["runs"][1]["functions"].contains("lost_samples")) << "an all-zero column is left out";
  const ResultFile b = result_from_json_text(text, "sampler.json");
  const SamplerCounts& c = b.runs[0].sampler;
  EXPECT_EQ(c.samples, 5871u);
  EXPECT_EQ(c.no_stack, 2u);
  EXPECT_EQ(c.not_to_root, 918u);
  EXPECT_EQ(c.no_caller, 900u);
  EXPECT_EQ(c.fp_differed, 5327u);
  EXPECT_DOUBLE_EQ(b.runs[0].cpu_s, 1.18);
  EXPECT_DOUBLE_EQ(b.runs[0].sampled_cpu_s, 0.75);
  EXPECT_EQ(b.runs[0].functions[0].lost_samples, 17u);
  EXPECT_EQ(b.runs[1].sampler.samples, 0u);
  EXPECT_LT(b.runs[1].sampled_cpu_s, 0) << "absent: not known";
}

// Schema 2 stores only the functions a run saw; the ones it did not see come back with zero calls,
// and a function a run does not hold at all stays absent from that run.
TEST(ResultIo, ColumnsKeepIdleAndAbsentFunctions) {
  ResultFile a = sample();
  FunctionInfo idle;
  idle.id = 1;
  idle.name = "example.com/shop.idle";
  a.functions.push_back(idle);
  for (auto& run : a.runs) run.functions.push_back(FunctionRun{.name = idle.name});
  a.runs[2].functions.erase(a.runs[2].functions.begin());  // run 3 lacks Checkout altogether
  a.runs[1].functions[0].dropped = 4;
  const std::string text = result_to_json_text(a);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("schema_version"), 2);
  EXPECT_EQ(j["runs"][0]["functions"]["id"].size(), 1u) << "an idle function takes no column space";
  EXPECT_FALSE(j["runs"][0]["functions"].contains("dropped")) << "an all-zero counter is omitted";
  EXPECT_EQ(j["runs"][2]["functions"]["absent"], nlohmann::json::array({0}));
  const ResultFile b = result_from_json_text(text, "mem");
  ASSERT_EQ(b.runs.size(), 3u);
  ASSERT_EQ(b.runs[0].functions.size(), 2u);
  EXPECT_EQ(b.runs[0].functions[1].name, idle.name);
  EXPECT_EQ(b.runs[0].functions[1].calls, 0u);
  EXPECT_EQ(b.runs[1].functions[0].dropped, 4u);
  ASSERT_EQ(b.runs[2].functions.size(), 1u);
  EXPECT_EQ(b.runs[2].find("example.com/shop.(*Cart).Checkout"), nullptr);
  EXPECT_EQ(result_to_json_text(b), text) << "a second round trip changes nothing";
}

// Baselines recorded before schema 2 (one object per function and run) still load.
TEST(ResultIo, SchemaOneStillLoads) {
  const std::string v1 = R"({"schema": "gate.result", "schema_version": 1, "context": {"binary_path": "/b"},
    "functions": [{"id": 0, "name": "main.f"}],
    "runs": [{"index": 1, "functions": [{"name": "main.f", "calls": 3, "sum_ns": 3300, "min_ns": 1000,
              "max_ns": 1200, "histogram": [[400, 2], [410, 1]], "dropped": 1}]}]})";
  const ResultFile r = result_from_json_text(v1, "old.json");
  ASSERT_EQ(r.runs.size(), 1u);
  ASSERT_EQ(r.runs[0].functions.size(), 1u);
  EXPECT_EQ(r.runs[0].functions[0].calls, 3u);
  EXPECT_EQ(r.runs[0].functions[0].histogram.count(), 3u);
  EXPECT_EQ(r.runs[0].functions[0].dropped, 1u);
  EXPECT_EQ(nlohmann::json::parse(result_to_json_text(r)).at("schema_version"), 2) << "saved in the current schema";
}

// Issue 14: a 10,000-function, 20-run result (each function called 2-8 times a run, latencies of
// 15-40 us, with true time's figures and call graph) stays small. Schema 1 wrote 94 MiB for such a
// run without true time; schema 2 writes 13.8 MiB without it, 22.7 MiB with it.
TEST(ResultIo, TenThousandFunctionsTwentyRunsStaySmall) {
  const ResultFile r = testing::many_function_result(10000, 20);
  const std::string text = result_to_json_text(r);
  EXPECT_LT(text.size(), 24u << 20) << "10,000 functions x 20 runs: " << text.size() / 1048576.0 << " MiB";
  const ResultFile back = result_from_json_text(text, "big.json");
  ASSERT_EQ(back.runs.size(), 20u);
  EXPECT_EQ(back.runs[19].functions[9999].histogram, r.runs[19].functions[9999].histogram);
  EXPECT_EQ(back.runs[7].functions[1234].sum_ns, r.runs[7].functions[1234].sum_ns);
  // True time, as a default run records it: a leaf's self histogram (stored as "same as its time")
  // and a parent's own, and the caller edges.
  for (int f : {1233, 1232}) {
    const TrueTimeRun& t = back.runs[7].functions[f].true_time;
    const TrueTimeRun& want = r.runs[7].functions[f].true_time;
    EXPECT_EQ(t.self_histogram, want.self_histogram) << f;
    EXPECT_EQ(t.raw_sum_ns, want.raw_sum_ns) << f;
    EXPECT_EQ(t.descendants, want.descendants) << f;
    ASSERT_EQ(t.callers.size(), want.callers.size()) << f;
  }
  EXPECT_EQ(back.runs[7].functions[1233].true_time.callers.at(0).name, "example.com/svc/pkg.F1232");
}

TEST(ResultIo, ColumnOfWrongLengthIsRejected) {
  auto j = nlohmann::json::parse(result_to_json_text(sample()));
  j["runs"][0]["functions"]["sum_ns"].push_back(5);
  try {
    result_from_json_text(j.dump(), "cut.json");
    FAIL() << "accepted a column longer than its list of functions";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cut.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"sum_ns\" column has 2 values for 1 functions"), std::string::npos)
        << e.what();
  }
}

TEST(ResultIo, AtomicWriteReplacesWholeOrNotAtAll) {
  const fs::path dir = fs::temp_directory_path() / "gate-atomic-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "baseline.json").string();
  save_result_file(path, sample());
  const auto before = load_result_file(path);
  EXPECT_EQ(before.runs.size(), 3u);
  // A directory we cannot write into: the write fails, the old file stays, no temp file is left.
  if (geteuid() != 0) {
    chmod(dir.c_str(), 0500);
    EXPECT_THROW(save_result_file(path, ResultFile{}), Error);
    chmod(dir.c_str(), 0700);
  }
  // A target that is a directory: rename fails; nothing is left behind.
  const std::string as_dir = (dir / "isdir").string();
  fs::create_directories(as_dir + "/x");
  EXPECT_THROW(write_file_atomically(as_dir, "data"), Error);
  EXPECT_EQ(load_result_file(path).runs.size(), 3u);
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << "temp file left: " << e.path();
  }
}

}  // namespace
}  // namespace gate
