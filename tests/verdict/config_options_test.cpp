// verdict::compare_options from parsed configs, and the threshold diff (data and its sentence)
// between two configs. No root.
#include <gtest/gtest.h>

#include "runner/config.hpp"
#include "verdict/config_options.hpp"
#include "explain/threshold_diff_text.hpp"
#include "verdict/threshold_diff.hpp"

namespace gate::verdict {
namespace {

runner::Config config(const std::string& verdict_settings) {
  return runner::parse_config("binary: bin/x\nworkload: bin/x\nfunctions:\n  - main.*\n  - name: main.slow\n"
                              "    threshold: 20%\n" +
                                  verdict_settings,
                              "/tmp/gate.yaml");
}

std::vector<FunctionInfo> functions(std::vector<std::string> names) {
  std::vector<FunctionInfo> out;
  for (auto& n : names) out.push_back({.name = n});
  return out;
}

TEST(CompareOptions, DefaultsWithoutAConfig) {
  const stats::CompareOptions d;
  const auto o = compare_options(nullptr, functions({"main.f"}));
  EXPECT_EQ(o.quantiles.size(), d.quantiles.size());
  EXPECT_EQ(o.calls_ratio_threshold, d.calls_ratio_threshold);
}

// gate check and gate ab record their looks in the results; gate compare of those files uses them.
TEST(CompareOptions, LooksComeFromTheHeadResult) {
  ResultFile head;
  EXPECT_FALSE(with_looks({}, head).sequential());  // none recorded: one look
  head.extra["looks"] = looks_text(10, 30);
  EXPECT_EQ(head.extra["looks"], "10..30");
  const auto o = with_looks({}, head);
  EXPECT_TRUE(o.sequential());
  EXPECT_EQ(o.first_look, 10);
  EXPECT_EQ(o.last_look, 30);
  for (const char* bad : {"", "10", "10..", "30..10", "0..5", "10..30x", "a..b"}) {
    head.extra["looks"] = bad;
    EXPECT_FALSE(with_looks({}, head).sequential()) << bad;
  }
}

TEST(CompareOptions, FromTheConfig) {
  const auto cfg = config("quantiles: [p50, p90]\nthreshold: 5%\nthresholds: {p90: 8%}\ncalls_change: 25%\n"
                          "fail_on_calls_change: true\nfail_on_insufficient_data: true\n");
  const auto o = compare_options(&cfg, functions({"main.fast", "main.slow", "other.g"}));
  ASSERT_EQ(o.quantiles.size(), 2u);
  EXPECT_EQ(o.quantiles[1].name, "p90");
  EXPECT_DOUBLE_EQ(o.thresholds.lookup("main.fast", "p50").regression, 0.05);
  EXPECT_DOUBLE_EQ(o.thresholds.lookup("main.fast", "p90").regression, 0.08);
  EXPECT_DOUBLE_EQ(o.thresholds.lookup("main.slow", "p90").regression, 0.20) << "per function beats per quantile";
  EXPECT_DOUBLE_EQ(o.thresholds.lookup("other.g", "p50").regression, 0.05);
  EXPECT_DOUBLE_EQ(o.calls_ratio_threshold, 1.25);
  EXPECT_EQ(o.calls_policy, stats::CallsPolicy::kFailOnChange);
  EXPECT_TRUE(o.require_sufficient_data);
}

// Every family word the config accepts names the correction it promises, and the suspect policy
// follows the config, else gate's default.
TEST(CompareOptions, FamilyAndSuspectPolicy) {
  const std::pair<const char*, stats::Multiplicity> words[] = {
      {"holm", stats::Multiplicity::kHolm},
      {"p50-first", stats::Multiplicity::kHolmPrimaryFirst},
      {"fdr", stats::Multiplicity::kBenjaminiHochberg},
      {"bonferroni", stats::Multiplicity::kBonferroni},
      {"none", stats::Multiplicity::kNone}};
  for (const auto& [word, m] : words) {
    const auto cfg = config(std::string("family: ") + word + "\n");
    EXPECT_EQ(compare_options(&cfg, functions({"main.f"})).multiplicity, m) << word;
  }
  const auto unset = config("");
  EXPECT_EQ(compare_options(&unset, functions({"main.f"})).multiplicity, stats::Multiplicity::kHolm);
  EXPECT_EQ(compare_options(&unset, functions({"main.f"})).fail_on_suspect, runner::kFailOnSuspectByDefault);
  EXPECT_EQ(compare_options(nullptr, functions({"main.f"})).fail_on_suspect, runner::kFailOnSuspectByDefault);
  const auto on = config("fail_on_suspect: true\n"), off = config("fail_on_suspect: false\n");
  EXPECT_TRUE(compare_options(&on, functions({"main.f"})).fail_on_suspect);
  EXPECT_FALSE(compare_options(&off, functions({"main.f"})).fail_on_suspect);
}

TEST(ThresholdDiff, NoChangeIsEmpty) {
  const auto a = config("threshold: 5%\n"), b = config("threshold: 5%\n");
  const auto fns = functions({"main.f", "main.slow"});
  const auto d = diff_thresholds(compare_options(&a, fns), compare_options(&b, fns), fns);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(explain::threshold_diff_text(d), "");
}

TEST(ThresholdDiff, GroupsFunctionsThatMovedAlike) {
  const auto before = config("threshold: 10%\n"), after = config("threshold: 3%\nquantiles: [p50]\n");
  const auto fns = functions({"main.a", "main.b", "main.c", "main.slow"});
  const auto d = diff_thresholds(compare_options(&before, fns), compare_options(&after, fns), fns);
  EXPECT_FALSE(d.empty());
  EXPECT_EQ(d.quantiles_before, (std::vector<std::string>{"p50", "p99"}));
  EXPECT_EQ(d.quantiles_after, (std::vector<std::string>{"p50"}));
  ASSERT_EQ(d.bands.size(), 1u) << "main.slow keeps its own 20%";
  EXPECT_DOUBLE_EQ(d.bands[0].before.regression, 0.10);
  EXPECT_DOUBLE_EQ(d.bands[0].after.regression, 0.03);
  EXPECT_EQ(d.bands[0].where, (std::vector<std::string>{"main.a p50", "main.a p99", "main.b p50", "main.b p99",
                                                        "main.c p50", "main.c p99"}));
  EXPECT_EQ(explain::threshold_diff_text(d),
            "quantiles p50, p99 -> p50; threshold +10% / -10% -> +3% / -3% for 6 function quantiles (main.a p50, "
            "main.a p99, ...)");
}

TEST(ThresholdDiff, PoliciesAndCallsChange) {
  const auto before = config(""), after = config("calls_change: 20%\nfail_on_calls_change: true\n"
                                                 "fail_on_insufficient_data: true\n");
  const auto fns = functions({"main.f"});
  const auto d = diff_thresholds(compare_options(&before, fns), compare_options(&after, fns), fns);
  EXPECT_EQ(explain::threshold_diff_text(d), "calls_change 50% -> 20%; fail_on_calls_change false -> true; "
                         "fail_on_insufficient_data false -> true");
}

TEST(ThresholdDiff, TwoPlacesAreNamed) {
  const auto before = config(""), after = config("thresholds: {p99: 30%}\n");
  const auto fns = functions({"main.f", "main.g"});
  const auto d = diff_thresholds(compare_options(&before, fns), compare_options(&after, fns), fns);
  ASSERT_EQ(d.bands.size(), 1u);
  EXPECT_NE(explain::threshold_diff_text(d).find("-> +30% / -30% for main.f p99, main.g p99"), std::string::npos) << explain::threshold_diff_text(d);
}

// gate ab --thresholds-ref (issue 56): the base's verdict settings judge, per-function ones matched by
// pattern; what is measured stays the head's; the notice names the loosening and whose settings applied.
TEST(ThresholdsFromBase, TheBaseSettingsJudge) {
  const auto base = config("threshold: 10%\nthresholds: {p99: 30%}\n");
  auto head = config("threshold: 50%\nfail_on_suspect: true\nfamily: none\nruns: 9\n");
  head.functions[1].threshold = 0.9;  // main.slow loosened from 20% to 90%
  const auto judged = with_verdict_settings_of(head, base);
  const auto fns = functions({"main.f", "main.slow"});
  const auto o = compare_options(&judged, fns);
  EXPECT_DOUBLE_EQ(o.thresholds.lookup("main.f", "p50").regression, 0.10);
  EXPECT_DOUBLE_EQ(o.thresholds.lookup("main.f", "p99").regression, 0.30);
  EXPECT_DOUBLE_EQ(o.thresholds.lookup("main.slow", "p50").regression, 0.20);
  EXPECT_EQ(o.multiplicity, stats::Multiplicity::kHolm);
  EXPECT_EQ(o.fail_on_suspect, runner::kFailOnSuspectByDefault);
  EXPECT_EQ(judged.runs, 9) << "what is measured stays the head's";
  const std::string n = ab_threshold_notice(std::string(40, 'a'), "svc/gate.yaml", base, head, fns);
  EXPECT_EQ(n.rfind("this branch changes the thresholds in svc/gate.yaml (compared with aaaaaaaaaaaa): threshold "
                    "+10% / -10% -> +50% / -50% for main.f p50",
                    0),
            0u)
      << n;
  EXPECT_NE(n.find("+20% / -20% -> +90% / -90% for main.slow p50, main.slow p99"), std::string::npos) << n;
  EXPECT_NE(n.find("; gate ab applied the base's settings (aaaaaaaaaaaa)"), std::string::npos) << n;
  EXPECT_EQ(ab_threshold_notice("main", "svc/gate.yaml", base, base, fns), "");
}

// A head pattern the base does not have gets the base's defaults, not the head's own threshold.
TEST(ThresholdsFromBase, NewPatternTakesTheBaseDefaults) {
  const auto base = config("threshold: 5%\n");
  auto head = base;
  head.functions.push_back({.pattern = "main.new", .threshold = 0.8});
  const auto judged = with_verdict_settings_of(head, base);
  ASSERT_EQ(judged.functions.size(), 3u);
  EXPECT_FALSE(judged.functions[2].threshold.has_value());
  const auto o = compare_options(&judged, functions({"main.new"}));
  EXPECT_DOUBLE_EQ(o.thresholds.lookup("main.new", "p50").regression, 0.05);
}

}  // namespace
}  // namespace gate::verdict
