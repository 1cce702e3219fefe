// Go benchmark results through the rest of gate, without root: stored per run in the result JSON,
// compared per run in one Holm family with the functions, and shown in every report format.
#include <gtest/gtest.h>

#include "explain/explain.hpp"

#include <cmath>
#include <random>
#include <regex>

#include <nlohmann/json.hpp>

#include "common/format.hpp"
#include "report/reports.hpp"
#include "report/run_table.hpp"
#include "report/report_util.hpp"
#include "report/text_report.hpp"
#include "results/result.hpp"
#include "results/unit_merge.hpp"
#include "verdict/benchmark_family.hpp"

namespace gate {
namespace {

// A function's run: 200 calls of `fn_ns` each, +0-4%.
FunctionRun function_run(const std::string& name, double fn_ns) {
  FunctionRun f;
  f.name = name;
  for (int i = 0; i < 200; ++i) {
    const uint64_t ns = static_cast<uint64_t>(fn_ns * (1 + 0.01 * (i % 5)));
    f.histogram.add(ns);
    f.sum_ns += ns;
    f.min_ns = f.min_ns ? std::min(f.min_ns, ns) : ns;
    f.max_ns = std::max(f.max_ns, ns);
  }
  f.calls = 200;
  return f;
}

// A run of one function (function_run: 200 calls of `fn_ns`) and the given benchmark lines.
RunResult run_with(int index, const std::string& variant, double fn_ns, std::vector<BenchmarkRun> benchmarks) {
  RunResult r;
  r.index = index;
  r.variant = variant;
  r.functions.push_back(function_run("example.com/x.F", fn_ns));
  r.benchmarks = std::move(benchmarks);
  r.benchmark_higher_better = {"MB/s"};
  return r;
}

BenchmarkRun bench(const std::string& name, std::vector<std::pair<std::string, double>> metrics) {
  return BenchmarkRun{name, "example.com/x", 1000, std::move(metrics)};
}

// Per run a small deterministic wobble (+-2%) so that the intervals have a width.
double wobble(int run) { return 1 + 0.02 * ((run * 7) % 5 - 2) / 2.0; }

struct Sides {
  std::vector<RunResult> base, head;
  ResultFile base_meta, head_meta;
};

// 8 runs a side: BenchmarkSlow 1.3x slower in head, BenchmarkSame unchanged, allocs 0 -> 1,
// throughput down 30%, a custom unit unchanged, and a benchmark that only base ran.
Sides slowed_sides(bool paired) {
  Sides s;
  for (int i = 0; i < 8; ++i) {
    const double w = wobble(i), w2 = wobble(i + 3);
    s.base.push_back(run_with(i + 1, paired ? "base" : "", 1000 * w,
                              {bench("BenchmarkSlow-2", {{"ns/op", 5000 * w}, {"B/op", 64}, {"allocs/op", 0}}),
                               bench("BenchmarkSame-2", {{"ns/op", 700 * w2}, {"widgets/op", 42 * w}}),
                               bench("BenchmarkCopy-2", {{"ns/op", 300 * w}, {"MB/s", 1000 / w}}),
                               bench("BenchmarkGone-2", {{"ns/op", 10}})}));
    s.head.push_back(run_with(i + 1, paired ? "head" : "", 1000 * w2,
                              {bench("BenchmarkSlow-2", {{"ns/op", 6500 * w2}, {"B/op", 64}, {"allocs/op", 1}}),
                               bench("BenchmarkSame-2", {{"ns/op", 700 * w}, {"widgets/op", 42 * w2}}),
                               bench("BenchmarkCopy-2", {{"ns/op", 300 * w2}, {"MB/s", 700 / w2}})}));
  }
  s.base_meta.functions.push_back(FunctionInfo{0, "example.com/x.F"});
  s.head_meta.functions = s.base_meta.functions;
  return s;
}

const stats::BenchmarkMetricComparison* find(const stats::Comparison& c, const std::string& b, const std::string& unit) {
  for (const auto& m : c.benchmarks.metrics)
    if (m.benchmark == b && m.unit == unit) return &m;
  return nullptr;
}

stats::CompareOptions options() {
  stats::CompareOptions o;
  o.quantiles = {stats::QuantileSpec::parse("p50")};
  o.thresholds.defaults = {0.1, 0.1};
  o.normalize_speed = false;  // one function: not usable anyway
  return o;
}

TEST(BenchmarkResults, RoundTripThroughTheResultJsonAndOnlyWhenPresent) {
  ResultFile r;
  r.runs.push_back(run_with(1, "", 1000, {bench("BenchmarkA/sub=1-8", {{"ns/op", 12.5}, {"furlongs", 3}})}));
  r.runs[0].benchmark_config = {{"goos", "linux"}, {"pkg", "example.com/x"}};
  r.runs[0].benchmark_warnings = {"run 1 stdout:7: \"BenchmarkB-8 x\" is not a benchmark result"};
  r.runs.push_back(run_with(2, "", 1000, {}));
  r.runs[1].benchmark_higher_better.clear();
  const std::string text = result_to_json_text(r);
  const ResultFile back = result_from_json_text(text, "test");
  ASSERT_EQ(back.runs.size(), 2u);
  const auto& b = back.runs[0];
  ASSERT_EQ(b.benchmarks.size(), 1u);
  EXPECT_EQ(b.benchmarks[0].name, "BenchmarkA/sub=1-8");
  EXPECT_EQ(b.benchmarks[0].pkg, "example.com/x");
  EXPECT_EQ(b.benchmarks[0].iterations, 1000u);
  EXPECT_EQ(b.benchmarks[0].metrics, (std::vector<std::pair<std::string, double>>{{"ns/op", 12.5}, {"furlongs", 3}}));
  EXPECT_EQ(b.benchmark_config.at("goos"), "linux");
  EXPECT_EQ(b.benchmark_higher_better, std::vector<std::string>{"MB/s"});
  EXPECT_EQ(b.benchmark_warnings.size(), 1u);
  EXPECT_TRUE(back.runs[1].benchmarks.empty());
  // A run without benchmark output keeps the result format it had before benchmarks existed.
  EXPECT_EQ(result_to_json_text(ResultFile{.runs = {run_with(1, "", 1000, {})}}).find("\"benchmarks\""),
            std::string::npos);
}

void expect_slowed_verdicts(const stats::Comparison& c) {
  const auto* slow = find(c, "BenchmarkSlow-2", "ns/op");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->test.verdict, stats::Verdict::kRegression) << explain::reason(slow->test);
  EXPECT_NEAR(slow->test.ratio, 1.3, 0.03);
  EXPECT_DOUBLE_EQ(slow->base_value, 5000 * 1.0);  // median of the wobbled runs
  const auto* same = find(c, "BenchmarkSame-2", "ns/op");
  ASSERT_NE(same, nullptr);
  EXPECT_EQ(same->test.verdict, stats::Verdict::kUnchanged) << explain::reason(same->test);
  const auto* custom = find(c, "BenchmarkSame-2", "widgets/op");  // an unknown unit: kept and compared
  ASSERT_NE(custom, nullptr);
  EXPECT_TRUE(custom->in_family);
  EXPECT_EQ(custom->test.verdict, stats::Verdict::kUnchanged);
  const auto* bytes = find(c, "BenchmarkSlow-2", "B/op");  // identical constants: unchanged, no test
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(bytes->test.verdict, stats::Verdict::kUnchanged);
  EXPECT_FALSE(bytes->in_family);
  const auto* allocs = find(c, "BenchmarkSlow-2", "allocs/op");  // 0 -> 1 is a change, not a floor
  ASSERT_NE(allocs, nullptr);
  EXPECT_EQ(allocs->test.verdict, stats::Verdict::kRegression);
  const auto* mbs = find(c, "BenchmarkCopy-2", "MB/s");  // throughput down: worse
  ASSERT_NE(mbs, nullptr);
  EXPECT_TRUE(mbs->higher_is_better);
  EXPECT_EQ(mbs->test.verdict, stats::Verdict::kRegression);
  EXPECT_EQ(c.benchmarks.only_in_base, std::vector<std::string>{"BenchmarkGone-2"});
  bool named = false;
  for (const auto& w : explain::warnings(c)) named |= w.find("benchmark BenchmarkGone-2 ran in base but not in head") == 0;
  EXPECT_TRUE(named);
  EXPECT_EQ(c.benchmarks.counts.regression, 3);
  EXPECT_EQ(c.exit_code, ExitCode::kRegression);  // the function is unchanged: the benchmarks fail the gate
  EXPECT_EQ(c.counts.regression, 0);
}

TEST(BenchmarkVerdict, StoredBaselineFlagsTheSlowedMetricsOnly) {
  const auto s = slowed_sides(false);
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  EXPECT_FALSE(c.paired);
  expect_slowed_verdicts(c);
}

TEST(BenchmarkVerdict, GateAbPairsTheRunsAsForFunctions) {
  const auto s = slowed_sides(true);
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  EXPECT_TRUE(c.paired);
  expect_slowed_verdicts(c);
  EXPECT_TRUE(find(c, "BenchmarkSlow-2", "ns/op")->test.paired);
}

// A baseline written before gate took a unit's fastest execution (its units of 3 executions hold
// their mean) against a head that took the fastest: named as a warning; alike, nothing is said.
TEST(BenchmarkVerdict, ABaselineOfMeansAgainstFastestExecutionsIsNamed) {
  auto s = slowed_sides(false);
  for (auto* side : {&s.base, &s.head})
    for (auto& r : *side) r.clean_executions = r.probed_executions = 3;
  s.head_meta.extra[kBenchmarkFoldKey] = kBenchmarkFoldFastest;
  auto c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  EXPECT_FALSE(c.benchmarks.base_source.fastest);
  EXPECT_TRUE(c.benchmarks.head_source.fastest);
  const auto warnings = explain::benchmark_warnings(c.benchmarks);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("the base's benchmark figures were recorded by an older gate"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("reads faster in the head"), std::string::npos) << warnings[0];
  s.base_meta.extra[kBenchmarkFoldKey] = kBenchmarkFoldFastest;
  c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  EXPECT_TRUE(explain::benchmark_warnings(c.benchmarks).empty());
  EXPECT_NE(explain::benchmark_source(c.benchmarks).find("a unit's time per op is its fastest execution's"),
            std::string::npos)
      << explain::benchmark_source(c.benchmarks);
  // One execution a unit: the fastest is the mean, nothing to say.
  s.base_meta.extra.clear();
  for (auto& r : s.base) r.clean_executions = r.probed_executions = 1;
  c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  EXPECT_TRUE(explain::benchmark_warnings(c.benchmarks).empty());
}

// One benchmark whose ns/op swings +-15% a run (a build beside it): undecided, and the warning says
// what measures past that (benchmark_cpu: true); with cpu-ns/op beside it nothing is said, and
// with several benchmarks it says benchmark_cpu needs one an execution.
TEST(BenchmarkVerdict, AnUndecidedWallTimeNamesCpuTimePerOp) {
  auto sides = [](bool with_cpu, bool two) {
    Sides s;
    for (int i = 0; i < 8; ++i) {
      const double w = 1 + 0.15 * std::sin(2.1 * i), w2 = 1 + 0.15 * std::sin(3.7 * i + 1);
      std::vector<std::pair<std::string, double>> b{{"ns/op", 1000 * w}}, h{{"ns/op", 1030 * w2}};
      if (with_cpu) {
        b.emplace_back(kCpuNsPerOp, 900);
        h.emplace_back(kCpuNsPerOp, 927);
      }
      std::vector<BenchmarkRun> bb{bench("BenchmarkHot-2", b)}, hh{bench("BenchmarkHot-2", h)};
      if (two) {
        bb.push_back(bench("BenchmarkCold-2", {{"ns/op", 50}}));
        hh.push_back(bench("BenchmarkCold-2", {{"ns/op", 50}}));
      }
      s.base.push_back(run_with(i + 1, "base", 1000, bb));
      s.head.push_back(run_with(i + 1, "head", 1000, hh));
    }
    s.base_meta.functions.push_back(FunctionInfo{0, "example.com/x.F"});
    s.head_meta.functions = s.base_meta.functions;
    return s;
  };
  auto hint = [](const stats::Comparison& c) {
    for (const auto& w : explain::benchmark_warnings(c.benchmarks))
      if (w.find("BenchmarkHot-2: ns/op decided nothing") == 0) return w;
    return std::string();
  };
  auto s = sides(false, false);
  auto c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  const auto* hot = find(c, "BenchmarkHot-2", "ns/op");
  ASSERT_NE(hot, nullptr);
  ASSERT_TRUE(hot->test.verdict == stats::Verdict::kInconclusive || hot->test.verdict == stats::Verdict::kSuspect)
      << explain::reason(hot->test);
  std::string w = hint(c);
  EXPECT_NE(w.find(fmt("at %.1f%% noise a pair", 100 * hot->test.noise)), std::string::npos) << w;
  EXPECT_NE(w.find("set benchmark_cpu: true"), std::string::npos) << w;
  bool in_warnings = false;  // the reports' warnings list says it
  for (const auto& line : explain::warnings(c)) in_warnings |= line == "benchmark " + w;
  EXPECT_TRUE(in_warnings);
  s = sides(true, false);
  c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  EXPECT_EQ(hint(c), "");
  EXPECT_EQ(find(c, "BenchmarkHot-2", kCpuNsPerOp)->test.verdict, stats::Verdict::kUnchanged);
  s = sides(false, true);
  c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  w = hint(c);
  EXPECT_NE(w.find("where each execution runs one benchmark"), std::string::npos) << w;
}

TEST(BenchmarkVerdict, OneFamilyWithTheFunctions) {
  const auto s = slowed_sides(false);
  const auto alone = stats::compare(s.base, s.head, s.base_meta, s.head_meta, options());
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  int in_family = 0;
  for (const auto& m : c.benchmarks.metrics) in_family += m.in_family;
  EXPECT_EQ(c.tests, alone.tests + in_family);
  EXPECT_NE(explain::method(c).find("over " + std::to_string(c.tests) + " tests (functions and benchmark metrics)"),
            std::string::npos)
      << explain::method(c);
  // The function's adjusted p-value can only grow with the larger family.
  EXPECT_GE(c.functions[0].quantiles[0].p_regression_adjusted, alone.functions[0].quantiles[0].p_regression_adjusted);
}

TEST(BenchmarkVerdict, NothingChangesWithoutBenchmarks) {
  auto s = slowed_sides(false);
  for (auto* side : {&s.base, &s.head})
    for (auto& r : *side) r.benchmarks.clear();
  auto alone = stats::compare(s.base, s.head, s.base_meta, s.head_meta, options());
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  EXPECT_FALSE(c.benchmarks.present());
  EXPECT_EQ(c.tests, alone.tests);
  EXPECT_EQ(explain::method(c), explain::method(alone));
  EXPECT_EQ(explain::warnings(c), explain::warnings(alone));
}

TEST(BenchmarkReports, EveryFormatHasTheBenchmarkSection) {
  const auto s = slowed_sides(false);
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  report::ReportInputs in;
  in.command = "check";
  const std::string text = report::render(report::Format::kText, c, in);
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\nregression +BenchmarkSlow-2 +ns/op +5\.00us/op -> 6\.\d\dus/op +1\.30x \[)")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\nregression +BenchmarkSlow-2 +allocs/op +0 allocs/op -> 1 allocs/op +from 0\n)")))
      << text;
  EXPECT_NE(text.find("benchmarks: 3 regressions, 0 improvements,"), std::string::npos) << text;
  const std::string md = report::render(report::Format::kMarkdown, c, in);
  EXPECT_NE(md.find("**Benchmarks:** 3 regressions, 0 improvements"), std::string::npos) << md;
  EXPECT_NE(md.find("| regression | `BenchmarkSlow-2` | ns/op |"), std::string::npos) << md;
  EXPECT_NE(md.find("benchmark metrics: 3 regressions"), std::string::npos) << md;  // the headline says it
  const auto json = nlohmann::json::parse(report::render(report::Format::kJson, c, in));
  ASSERT_TRUE(json.contains("benchmarks"));
  EXPECT_EQ(json["benchmarks"]["counts"]["regression"], 3);
  bool mbs = false;
  for (const auto& m : json["benchmarks"]["metrics"])
    if (m["unit"] == "MB/s") {
      mbs = true;
      EXPECT_EQ(m["verdict"], "regression");
      EXPECT_EQ(m["change"].get<std::string>().substr(0, 5), "0.70x");  // head/base, as the user reads it
    }
  EXPECT_TRUE(mbs);
  const std::string junit = report::render(report::Format::kJunit, c, in);
  EXPECT_NE(junit.find("<testcase name=\"BenchmarkSlow-2 ns/op\" classname=\"benchmarks\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("failures=\"3\""), std::string::npos) << junit;
  const std::string html = report::render(report::Format::kHtml, c, in);
  EXPECT_NE(html.find("<h2>Benchmarks</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>BenchmarkSlow-2</td>"), std::string::npos);
}

TEST(BenchmarkReports, GateRunsTableListsEachBenchmarkAndUnit) {
  ResultFile r;
  for (int i = 0; i < 3; ++i) r.runs.push_back(run_with(i + 1, "", 1000, {bench("BenchmarkA-2", {{"ns/op", 1000.0 * (i + 1)}, {"frobs", 7}})}));
  const std::string t = report::render_run_table(r);
  EXPECT_TRUE(std::regex_search(t, std::regex(R"(\nBenchmarkA-2 +ns/op +2\.00us/op +1\.00us/op +3\.00us/op +3\n)"))) << t;
  EXPECT_TRUE(std::regex_search(t, std::regex(R"(\nBenchmarkA-2 +frobs +7 frobs +7 frobs +7 frobs +3\n)"))) << t;
  for (auto& run : r.runs) run.benchmarks.clear();
  EXPECT_EQ(report::render_run_table(r).find("BenchmarkA"), std::string::npos);
}

// The last line of a CI log counts everything that set the exit code (issue 54: "gate: 0
// regressions ..." closed a log that exited 1 for a benchmark): the benchmark metrics' verdicts are
// in its counts, and the parenthesis says how many of each kind. Every format that has the line.
TEST(BenchmarkReports, TheSummaryLineCountsTheBenchmarkRegressions) {
  const auto s = slowed_sides(false);
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, options());
  ASSERT_EQ(c.counts.regression, 0);
  ASSERT_EQ(c.benchmarks.counts.regression, 3);
  const std::string line = report::summary_line(c);
  EXPECT_EQ(line.rfind("gate: 3 regressions, 0 improvements, ", 0), 0u) << line;
  EXPECT_NE(line.find("(1 function, 7 benchmark metrics of 3 benchmarks, 8 runs a side;"), std::string::npos) << line;
  report::ReportInputs in;
  in.command = "check";
  const std::string text = report::render(report::Format::kText, c, in);
  EXPECT_EQ(text.substr(text.rfind('\n', text.size() - 2) + 1), line + "\n") << "the text report's last line";
  EXPECT_EQ(nlohmann::json::parse(report::render(report::Format::kJson, c, in))["summary"], line);
  EXPECT_NE(report::render(report::Format::kJunit, c, in).find(report::xml_escape(line)), std::string::npos);
  EXPECT_NE(report::render(report::Format::kHtml, c, in).find(report::xml_escape(line)), std::string::npos);
  // Without benchmarks the line is as it was.
  auto plain = s;
  for (auto* side : {&plain.base, &plain.head})
    for (auto& r : *side) r.benchmarks.clear();
  const auto p = verdict::compare_with_benchmarks(plain.base, plain.head, plain.base_meta, plain.head_meta, options());
  EXPECT_NE(report::summary_line(p).find("(1 function, 8 runs a side;"), std::string::npos) << report::summary_line(p);
}

// Issue 54's benchmark, constructed: each process runs at one of two speeds (335 or 631 MB/s), the
// head's fast mode 0.88x and its slow mode 1.06x. The fastest execution of each unit (the fold
// before modes were looked for) reads the fast mode alone, 0.88x, a regression past the 5% band.
// Now: not a regression; every format names the modes with their shares and changes, and says the
// verdict rests on every mode. (sides: the processes' modes drawn at random, or in a fixed turn.)
Sides issue54_sides(bool random_mix, double fast, double slow_factor) {
  Sides s;
  std::mt19937_64 g(54);
  for (int p = 0; p < 10; ++p)
    for (int side = 0; side < 2; ++side) {
      std::vector<RunResult> executions;
      for (int i = 0; i < 6; ++i) {
        const bool slow = random_mix ? std::uniform_real_distribution<double>(0, 1)(g) < 0.5 : i % 2 == 1;
        const double v = (slow ? 335 * (side ? slow_factor : 1.0) : 631 * (side ? fast : 1.0)) *
                         std::exp(std::normal_distribution<double>(0, 0.03)(g));
        executions.push_back(run_with(p + 1, side ? "head" : "base", 1000, {bench("BenchmarkSum64/4KB-2", {{"MB/s", v}})}));
      }
      RunResult u = merge_executions(executions);
      u.index = p + 1;
      (side ? s.head : s.base).push_back(u);
    }
  s.base_meta.functions.push_back(FunctionInfo{0, "example.com/x.F"});
  s.head_meta.functions = s.base_meta.functions;
  return s;
}

stats::Comparison issue54(bool random_mix, double fast = 0.88, double slow = 1.06) {
  const Sides s = issue54_sides(random_mix, fast, slow);
  auto o = options();
  o.thresholds.defaults = {0.05, 0.05};
  return verdict::compare_with_benchmarks(s.base, s.head, s.base_meta, s.head_meta, o);
}

TEST(BenchmarkVerdict, ModesMovingApartAreNotARegressionAndAreNamed) {
  const auto c = issue54(true);
  const auto* m = find(c, "BenchmarkSum64/4KB-2", "MB/s");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->modes.apart);
  EXPECT_EQ(m->modes.fold, stats::BenchmarkModes::Fold::kEveryMode);
  EXPECT_NE(m->test.verdict, stats::Verdict::kRegression) << explain::reason(m->test);
  EXPECT_NE(m->test.verdict, stats::Verdict::kUnchanged) << explain::reason(m->test);
  EXPECT_EQ(c.exit_code, ExitCode::kOk);
  report::ReportInputs in;
  in.command = "ab";
  const std::string text = report::render(report::Format::kText, c, in);
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(MB/s: 2 modes across both sides' executions: fast \d+\.?\d* MB/s -> \d+\.?\d* MB/s \(\d+% of base's, \d+% of head's executions\), 0\.(8|9)\dx \[)")))
      << text;
  EXPECT_NE(text.find("the verdict rests on every mode"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(the fastest executions alone: 0\.(8|9)\dx)"))) << text;
  const auto json = nlohmann::json::parse(report::render(report::Format::kJson, c, in));
  const auto& jm = json["benchmarks"]["metrics"][0];
  ASSERT_TRUE(jm.contains("modes")) << jm.dump(1);
  EXPECT_EQ(jm["modes"]["apart"], true);
  EXPECT_EQ(jm["modes"]["verdict_rests_on"], "every mode");
  EXPECT_EQ(jm["modes"]["modes"].size(), 2u);
  EXPECT_NE(report::render(report::Format::kMarkdown, c, in).find("2 modes across both sides"), std::string::npos);
  EXPECT_NE(report::render(report::Format::kHtml, c, in).find("2 modes across both sides"), std::string::npos);
  // The table's base -> head are those of the fold that decided (every mode), not the fast mode's.
  EXPECT_LT(m->base_value, 600);
}

// Modes in a fixed turn (every unit half and half), the fast one 0.92x and the slow one 1.10x:
// every mode's fold is then precise and reads 1.00x, inside the band, which alone would be
// "unchanged"; the modes moved apart by 1.2x, so it is inconclusive with that reason.
TEST(BenchmarkVerdict, ModesMovingApartAreNeverUnchanged) {
  const auto c = issue54(false, 0.92, 1.10);
  const auto* m = find(c, "BenchmarkSum64/4KB-2", "MB/s");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->modes.apart);
  EXPECT_GT(m->test.ci_low, 0.95) << "inside the band: unchanged but for the modes";
  EXPECT_LT(m->test.ci_high, 1.05);
  EXPECT_EQ(m->test.verdict, stats::Verdict::kInconclusive) << explain::reason(m->test);
  EXPECT_EQ(m->test.why.kind, stats::Why::Kind::kModesApart);
  EXPECT_NE(explain::reason(m->test).find("its modes across executions moved apart"), std::string::npos);
  EXPECT_EQ(c.exit_code, ExitCode::kOk);
}

// gobench_e2e's case, constructed: the head's change (a busy-waiting Checkout, 4x) also slows every
// other function of the head by a factor c that varies run to run (1.15-1.45: descheduled more), and
// the benchmark's ns/op follows it, 4 x c / 1.3 a pair. From clean executions (no probe) the
// benchmark is not divided by the probed executions' speed factors: it reads its 4x. Taken in the
// probed executions it is (as before), and the fitted factor takes the common part out (~3.1x): the
// test can fail, and shows what the factor did to gobench_e2e's benchmark once (1.74x [0.52, 6.17]).
stats::Comparison common_slowdown(bool clean_executions) {
  std::vector<RunResult> base, head;
  ResultFile meta;
  const int kFns = 6;
  for (int f = 0; f < kFns; ++f) meta.functions.push_back(FunctionInfo{static_cast<uint32_t>(f), "example.com/x.F" + std::to_string(f)});
  for (int i = 0; i < 10; ++i) {
    const double w = wobble(i), c = 1.15 + 0.3 * ((i * 3) % 10) / 9.0;
    for (int side = 0; side < 2; ++side) {
      RunResult r = run_with(i + 1, side ? "head" : "base", 1000 * w,
                             {bench("BenchmarkCheckout-2", {{"ns/op", side ? 700e3 * 4 * c / 1.3 * wobble(i + 2) : 700e3 * w}})});
      r.functions.clear();
      for (int f = 0; f < kFns; ++f)
        r.functions.push_back(function_run(meta.functions[static_cast<size_t>(f)].name,
                                           (1000 + 300 * f) * (side ? c * wobble(i + f) : wobble(i + 2 * f))));
      if (clean_executions) r.clean_executions = r.probed_executions = 1;
      (side ? head : base).push_back(std::move(r));
    }
  }
  auto o = options();
  o.normalize_speed = true;
  return verdict::compare_with_benchmarks(base, head, meta, meta, o);
}

TEST(BenchmarkVerdict, CleanExecutionsAreNotDividedByTheProbedOnesSpeed) {
  const auto clean = common_slowdown(true), probed = common_slowdown(false);
  ASSERT_TRUE(clean.speed_normalized) << "the functions' speed factors are usable: the test tests something";
  EXPECT_GT(clean.common_shift.ratio, 1.2) << "every function slower together in the head";
  const auto* m = find(clean, "BenchmarkCheckout-2", "ns/op");
  ASSERT_NE(m, nullptr);
  EXPECT_NEAR(m->test.ratio, 4.0, 0.12) << "its own 4x, undivided";
  EXPECT_EQ(m->test.verdict, stats::Verdict::kRegression) << explain::reason(m->test);
  const auto* p = find(probed, "BenchmarkCheckout-2", "ns/op");
  ASSERT_NE(p, nullptr);
  EXPECT_LT(p->test.ratio, 3.5) << "from the probed executions the speed factor divides it, as before";
}

}  // namespace
}  // namespace gate
