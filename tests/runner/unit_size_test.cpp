// The unit planner (executions per unit from one execution's duration), the defaults per command,
// the baseline's executions per unit, and the config keys min_unit_seconds and layouts. No root.
#include "runner/unit_size.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "runner/config.hpp"

namespace gate::runner {
namespace {

namespace fs = std::filesystem;

Config config_of(const std::string& extra) {
  const fs::path dir = fs::temp_directory_path() / "gate-units-test";
  fs::create_directories(dir);
  const auto p = (dir / "gate.yaml").string();
  std::ofstream(p) << "binary: bin/shop\nworkload: bin/shop\nfunctions: [main.main]\n" << extra;
  return load_config(p);
}

std::string error_of(const std::string& extra) {
  try {
    config_of(extra);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    return e.what();
  }
  return "";
}

TEST(Units, ExecutionsPerUnitIsTheCeilingOfTargetOverDuration) {
  EXPECT_EQ(executions_per_unit(1.0, 0.3), 4);
  EXPECT_EQ(executions_per_unit(1.0, 0.25), 4) << "exactly the target: no extra execution";
  EXPECT_EQ(executions_per_unit(1.0, 0.26), 4);
  EXPECT_EQ(executions_per_unit(1.0, 0.24), 5);
  EXPECT_EQ(executions_per_unit(1.0, 1.0), 1);
  EXPECT_EQ(executions_per_unit(1.0, 7.0), 1) << "a long execution is a unit by itself";
  EXPECT_EQ(executions_per_unit(2.0, 0.5), 4);
}

TEST(Units, ExecutionsPerUnitIsBounded) {
  EXPECT_EQ(executions_per_unit(1.0, 0.001), kMaxExecutionsPerUnit);
  EXPECT_EQ(executions_per_unit(1.0, 0.001, 10), 10);
  EXPECT_EQ(executions_per_unit(1.0, 0.0), kMaxExecutionsPerUnit) << "unknown duration: the cap";
  EXPECT_EQ(executions_per_unit(0.0, 0.001), 1) << "0: one execution a unit";
}

TEST(Units, DefaultsPerCommand) {
  const Config plain = config_of("");
  EXPECT_EQ(min_unit_seconds(plain, UnitCommand::kAb), kDefaultMinUnitSeconds);
  EXPECT_EQ(min_unit_seconds(plain, UnitCommand::kCalibrate), kDefaultMinUnitSeconds);
  EXPECT_EQ(min_unit_seconds(plain, UnitCommand::kRun), 0.0);
  EXPECT_EQ(plain.layouts, 3);
  const Config set = config_of("min_unit_seconds: 2.5\nlayouts: 1\n");
  EXPECT_EQ(min_unit_seconds(set, UnitCommand::kAb), 2.5);
  EXPECT_EQ(min_unit_seconds(set, UnitCommand::kRun), 2.5);
  EXPECT_EQ(set.layouts, 1);
  EXPECT_EQ(min_unit_seconds(config_of("min_unit_seconds: 0\n"), UnitCommand::kAb), 0.0);
}

TEST(Units, ConfigErrorsNameTheKeyCauseAndFix) {
  for (const char* bad : {"min_unit_seconds: -1\n", "min_unit_seconds: 3601\n", "min_unit_seconds: soon\n",
                          "min_unit_seconds: [1]\n"}) {
    const std::string e = error_of(bad);
    EXPECT_NE(e.find("gate.yaml:4: 'min_unit_seconds'"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("from 0 to 3600"), std::string::npos) << e;
    EXPECT_NE(e.find("min_unit_seconds: 1"), std::string::npos) << "the fix: " << e;
  }
  for (const char* bad : {"layouts: 0\n", "layouts: 65\n", "layouts: 2.5\n", "layouts: many\n"}) {
    const std::string e = error_of(bad);
    EXPECT_NE(e.find("'layouts'"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("from 1 to 64"), std::string::npos) << e;
    EXPECT_NE(e.find("layouts: 1"), std::string::npos) << "the fix: " << e;
  }
}

TEST(Units, CheckFollowsTheBaselinesExecutionsPerUnit) {
  ResultFile base;
  EXPECT_EQ(baseline_executions_per_unit(base), 1) << "no runs";
  for (int k : {4, 4, 3, 4, 5}) {
    RunResult r;
    r.executions = k;
    base.runs.push_back(r);
  }
  EXPECT_EQ(baseline_executions_per_unit(base), 4);
  ResultFile old;
  old.runs.resize(3);  // from before units: executions 1
  EXPECT_EQ(baseline_executions_per_unit(old), 1);
}

TEST(Units, AdviceSaysWhatMadeAUnit) {
  ResultFile r;
  for (int i = 0; i < 4; ++i) {
    RunResult run;
    run.executions = 4;
    run.duration_s = 1.2;
    r.runs.push_back(run);
  }
  const std::string a = unit_advice(r, 1.0);
  EXPECT_NE(a.find("4 executions per unit"), std::string::npos) << a;
  EXPECT_NE(a.find("one execution: 0.30 s"), std::string::npos) << a;
  EXPECT_NE(a.find("alternate"), std::string::npos) << a;
  r.runs[0].executions = r.runs[1].executions = r.runs[2].executions = r.runs[3].executions = 64;
  EXPECT_NE(unit_advice(r, 1.0).find("capped at 64"), std::string::npos);
  EXPECT_NE(unit_advice(r, 0.0).find("min_unit_seconds: 0"), std::string::npos);
}

}  // namespace
}  // namespace gate::runner
