// The zero-call rules on hand-made results: a run with no call at all is a failed run naming the
// causes; an uncalled function is a note (its name, side, runs and inlining facts: the words are
// tests/explain/run_notes_test.cpp's), optional when its config entry says so (the baseline's
// refusal: tests/verdict/baseline_calls_test.cpp). No root.
#include "runner/coverage.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace gate::runner {
namespace {

FunctionInfo fn(const std::string& name, std::vector<std::string> inlined = {}, bool measurable = true) {
  FunctionInfo f;
  f.name = name;
  f.inlined_at = std::move(inlined);
  f.measurable = measurable;
  return f;
}

RunResult run_with(const std::vector<std::pair<std::string, uint64_t>>& calls) {
  RunResult r;
  for (const auto& [name, n] : calls) {
    FunctionRun fr;
    fr.name = name;
    fr.calls = n;
    r.functions.push_back(fr);
  }
  return r;
}

std::string failure_of(const RunResult& run, const std::vector<FunctionInfo>& fns, bool service) {
  try {
    require_some_call(run, fns, "run 2 (head)", service);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kMeasure);
    return e.what();
  }
  return "";
}

TEST(Coverage, ARunWithoutAnyCallFailsNamingTheCauses) {
  const std::vector<FunctionInfo> fns = {fn("main.a"), fn("main.b", {"main.go:12 in main.caller"}),
                                         fn("main.c", {}, false)};
  EXPECT_EQ(failure_of(run_with({{"main.a", 0}, {"main.b", 1}, {"main.c", 0}}), fns, false), "") << "one call is enough";
  const std::string e = failure_of(run_with({{"main.a", 0}, {"main.b", 0}, {"main.c", 0}}), fns, false);
  EXPECT_EQ(e.rfind("run 2 (head): ", 0), 0u) << e;
  EXPECT_NE(e.find("2 declared functions (main.a, main.b)"), std::string::npos) << "measurable ones: " << e;
  EXPECT_NE(e.find("never reached them"), std::string::npos) << e;
  EXPECT_NE(e.find("inlined everywhere: main.b"), std::string::npos) << e;
  EXPECT_EQ(e.find("service under load"), std::string::npos) << "a workload has no service: " << e;
  EXPECT_NE(e.find("fix: "), std::string::npos) << e;
  EXPECT_NE(failure_of(run_with({{"main.a", 0}, {"main.b", 0}}), fns, true).find("not the process gate started"),
            std::string::npos);

  RunResult entered = run_with({{"main.a", 0}, {"main.b", 0}});
  entered.functions[0].unmatched_entries = 3;
  EXPECT_NE(failure_of(entered, fns, false).find("entered 3 times but never returned"), std::string::npos);
}

TEST(Coverage, UncalledFunctionsAreNotesWithTheirInliningFacts) {
  ResultFile r;
  r.functions = {fn("main.a"), fn("main.b", {"x.go:1 in main.f", "x.go:2 in main.g"}), fn("main.c", {}, false),
                 fn("c_work")};
  r.functions[3].entry_placement = "native entry";
  EXPECT_TRUE(uncalled_functions(r).empty()) << "no runs: nothing to say";
  r.runs = {run_with({{"main.a", 5}, {"main.b", 0}, {"main.c", 0}}),
            run_with({{"main.a", 5}, {"main.b", 0}, {"main.c", 0}})};
  const auto u = uncalled_functions(r, "head");
  ASSERT_EQ(u.size(), 2u) << "main.c is not measurable (reported as such), main.a was called";
  EXPECT_EQ(u[0].name, "main.b");
  EXPECT_EQ(u[0].side, "head");
  EXPECT_EQ(u[0].runs, 2u);
  EXPECT_FALSE(u[0].native);
  EXPECT_EQ(u[0].inlined_at, (std::vector<std::string>{"x.go:1 in main.f", "x.go:2 in main.g"}));
  EXPECT_EQ(u[1].name, "c_work") << "absent from every run is uncalled too";
  EXPECT_TRUE(u[1].native);
  EXPECT_EQ(uncalled_functions(r)[0].side, "") << "gate run and gate record name no side";
  r.runs[1].functions[1].calls = 1;
  ASSERT_EQ(uncalled_functions(r).size(), 1u) << "called in one run is called";
}

TEST(Coverage, OptionalIsTheDeclaringEntrysWord) {
  Config cfg;
  cfg.functions = {{"main.a", {}, {}, false}, {"main.(*T).b", {}, {}, true}};  // exact name
  EXPECT_TRUE(is_optional(cfg, "main.(*T).b"));
  EXPECT_FALSE(is_optional(cfg, "main.a"));
  cfg.functions = {{"main.a", {}, {}, false}, {"main.*", {}, {}, true}};  // a glob marks what it matches
  EXPECT_TRUE(is_optional(cfg, "main.(*T).b"));
  EXPECT_TRUE(is_optional(cfg, "main.a")) << "any entry that declares it optional";
  EXPECT_FALSE(is_optional(cfg, "other.f"));
}

}  // namespace
}  // namespace gate::runner
