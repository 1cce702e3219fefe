// gate record's refusal of a baseline with a declared function no run called, unless the config
// marks it optional: the message names each function with its inlining status. No root.
#include "verdict/baseline_calls.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace gate::verdict {
namespace {

TEST(BaselineCalls, ABaselineRefusesAnUncalledFunctionUnlessOptional) {
  ResultFile r;
  r.functions.resize(2);
  r.functions[0].name = "main.a";
  r.functions[1].name = "main.(*T).b";
  for (auto& f : r.functions) f.measurable = true;
  RunResult run;
  run.functions.resize(2);
  run.functions[0].name = "main.a";
  run.functions[0].calls = 5;
  run.functions[1].name = "main.(*T).b";
  r.runs = {run};
  runner::Config cfg;
  cfg.path = "/x/gate.yaml";
  cfg.functions = {{"main.a", {}, {}, false}, {"main.(*T).b", {}, {}, false}};
  try {
    require_calls_for_baseline(r, cfg, "baselines/x.json");
    FAIL() << "must refuse";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.exit_code(), ExitCode::kMeasure);
    EXPECT_NE(m.find("baseline baselines/x.json: not written: 1 declared function had no calls in 1 run"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("- main.(*T).b (no inlined copies found)"), std::string::npos) << m;
    EXPECT_NE(m.find("{name: main.(*T).b, optional: true}"), std::string::npos) << m;
  }
  cfg.functions[1].optional = true;  // exact name
  EXPECT_NO_THROW(require_calls_for_baseline(r, cfg, "b.json"));
  cfg.functions = {{"main.a", {}, {}, false}, {"main.*", {}, {}, true}};  // a glob marks what it matches
  EXPECT_NO_THROW(require_calls_for_baseline(r, cfg, "b.json"));
}

}  // namespace
}  // namespace gate::verdict
