// The plain-text report: units, ratio cells, the summary line, column alignment, order and the
// optional parts, on comparisons of synthetic runs.
#include "report/text_report.hpp"
#include "explain/explain.hpp"

#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

#include "report_fixture.hpp"
#include "synthetic.hpp"

namespace gate::report {
namespace {

using gate::testing::contains;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// A comparison with a regression, an improvement, unchanged functions, a one-sided function and
// a context warning.
stats::Comparison sample() {
  auto base = testing::synthetic_functions(6);
  auto head = base;
  head[2].scale = 1.3;
  head[4].scale = 0.7;
  head.pop_back();  // main.f05 only in base
  testing::SyntheticNoise noise;
  noise.run_sigma = 0.01;
  auto bm = testing::synthetic_meta(base), hm = testing::synthetic_meta(head);
  hm.context.kernel = "6.9.0";
  return stats::compare(testing::synthetic_runs(base, 10, noise, 1), testing::synthetic_runs(head, 10, noise, 2), bm,
                        hm, {});
}

TEST(TextReport, DurationsInHumanUnits) {
  EXPECT_EQ(format_duration(0), "0ns");
  EXPECT_EQ(format_duration(812), "812ns");
  EXPECT_EQ(format_duration(999.4), "999ns");
  EXPECT_EQ(format_duration(999.6), "1.00us");
  EXPECT_EQ(format_duration(1234), "1.23us");
  EXPECT_EQ(format_duration(12345), "12.3us");
  EXPECT_EQ(format_duration(123456), "123us");
  EXPECT_EQ(format_duration(4.56e6), "4.56ms");
  EXPECT_EQ(format_duration(1.234e9), "1.23s");
  EXPECT_EQ(format_duration(5e12), "5000s");
  EXPECT_EQ(format_duration(std::nan("")), "-");
}

TEST(TextReport, RatioCell) {
  stats::QuantileComparison q;
  q.verdict = stats::Verdict::kRegression;
  q.ratio = 1.3149;
  q.ci_low = 1.2351;
  q.ci_high = 1.38;
  EXPECT_EQ(format_ratio(q), "1.31x [1.24, 1.38]");
  q.verdict = stats::Verdict::kInsufficientData;
  EXPECT_EQ(format_ratio(q), "-");
}

TEST(TextReport, SummaryLine) {
  stats::Comparison c;
  c.functions.resize(12);
  c.counts.regression = 1;
  c.counts.unchanged = 11;
  c.base_runs = c.head_runs = 5;
  EXPECT_EQ(summary_line(c),
            "gate: 1 regression, 0 improvements, 11 unchanged, 0 inconclusive (12 functions, 5 runs a side; "
            "hierarchical bootstrap 95% CI, Holm)");
  c.counts.regression = 2;
  c.counts.improvement = 1;
  c.counts.unchanged = 7;
  c.counts.insufficient_data = 2;
  c.head_runs = 6;
  EXPECT_EQ(summary_line(c),
            "gate: 2 regressions, 1 improvement, 7 unchanged, 0 inconclusive, 2 insufficient data (12 functions, "
            "5 base / 6 head runs; hierarchical bootstrap 95% CI, Holm)");
  // compare() names its method the same way.
  EXPECT_EQ(explain::method_short(sample()), "hierarchical bootstrap 95% CI, speed-normalized, Holm");
}

TEST(TextReport, WorstFirstAlignedWithWarningsListsAndSummary) {
  const auto c = sample();
  const std::string text = render_text(c);
  const auto lines = lines_of(text);
  ASSERT_GT(lines.size(), 5u);
  EXPECT_EQ(lines.back(), summary_line(c));
  // The table: the header, then one row per function (reason lines are indented by 4).
  const std::string& header = lines[0];
  std::vector<size_t> starts;
  for (const char* col : {"function", "p50 base -> head", "p50 head/base [CI]", "p99 base -> head",
                          "p99 head/base [CI]", "calls/run base -> head"}) {
    const auto at = header.find(col);
    ASSERT_NE(at, std::string::npos) << col;
    starts.push_back(at);
  }
  size_t rows = 0;
  std::vector<std::string> verdicts;
  for (size_t i = 1; i < lines.size() && !lines[i].empty(); ++i) {
    if (lines[i].rfind("    ", 0) == 0) continue;
    ++rows;
    verdicts.push_back(lines[i].substr(0, lines[i].find("  ")));
    for (size_t s : starts) {
      ASSERT_GT(lines[i].size(), s) << lines[i];
      EXPECT_EQ(lines[i][s - 1], ' ') << "column at " << s << " in: " << lines[i];
      EXPECT_NE(lines[i][s], ' ') << "column at " << s << " in: " << lines[i];
    }
  }
  EXPECT_EQ(rows, c.functions.size());
  EXPECT_EQ(verdicts.front(), "regression");
  EXPECT_EQ(verdicts.back(), "improvement");
  EXPECT_TRUE(contains(lines[1], "main.f02")) << lines[1];
  EXPECT_TRUE(contains(text, "\nwarnings:\n  kernel differs")) << text;
  EXPECT_TRUE(contains(text, "only in base (not compared): main.f05")) << text;
  EXPECT_TRUE(contains(text, "thresholds: +3% / -3%\n")) << text;
  EXPECT_TRUE(contains(text, "method: " + explain::method(c) + "\n")) << text;
  EXPECT_TRUE(contains(text, "1.3")) << text;
}

TEST(TextReport, OptionsSelectColumnsRowsAndReasons) {
  const auto c = sample();
  ReportInputs only_p99;
  only_p99.quantiles = {"p99"};
  const std::string a = render_text(c, only_p99);
  EXPECT_FALSE(contains(lines_of(a)[0], "p50")) << a;
  EXPECT_TRUE(contains(lines_of(a)[0], "p99 base -> head")) << a;

  ReportInputs quiet;
  quiet.reasons = false;
  quiet.quiet = true;
  const std::string b = render_text(c, quiet);
  for (const auto& l : lines_of(b)) {
    EXPECT_NE(l.rfind("    p", 0), 0u) << l;       // no reason lines
    EXPECT_NE(l.rfind("unchanged ", 0), 0u) << l;  // no unchanged rows
  }
  EXPECT_EQ(lines_of(b).back(), summary_line(c));  // still counted

  const std::string full = render_text(c);
  bool has_reason = false;
  for (const auto& l : lines_of(full)) has_reason |= l.rfind("    p99: inconclusive: 90% interval", 0) == 0;
  EXPECT_TRUE(has_reason) << full;
}

TEST(TextReport, ThresholdExceptionsAreShown) {
  auto fns = testing::synthetic_functions(3);
  testing::SyntheticNoise noise;
  const auto m = testing::synthetic_meta(fns);
  stats::CompareOptions o;
  o.thresholds.per_function_quantile["main.f01"]["p99"] = {0.10, 0.05};
  const auto c = stats::compare(testing::synthetic_runs(fns, 6, noise, 1), testing::synthetic_runs(fns, 6, noise, 2),
                                m, m, o);
  EXPECT_TRUE(contains(render_text(c), "thresholds: +3% / -3% except main.f01 p99 +10% / -5%\n")) << render_text(c);
}

}  // namespace
}  // namespace gate::report
