// gate calibrate's printout on synthetic A/As, against its golden file (tests/explain/golden/calibration.txt,
// written by the code before the words moved from verdict/ to explain/, issue 57). No root.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "synthetic.hpp"
#include "calibrate/calibration.hpp"

namespace gate::calibrate {
namespace {

// The printout, whole (calibrate::calibration_figures worded by explain::calibration_text), on
// synthetic A/As that reach every part of it (each advice group, the suggested runs and the
// Bonferroni note, the units' line), against its golden file (GATE_UPDATE_GOLDEN=1 rewrites it):
// the words may move between folders, the text may not change unseen.
std::string calibration_printout() {
  std::string out;
  auto render = [&out](const std::string& title, testing::SyntheticAA a, int runs, int max_runs, double slowdown, int executions) {
    verdict::AbJudged j;
    for (RunResult& r : a.head) {
      r.executions = executions;
      r.duration_s = 0.25 * executions;
    }
    j.base.result.runs = a.base;
    j.head.result.runs = a.head;
    j.comparison = a.comparison;
    runner::Config cfg;
    cfg.runs = runs;
    cfg.max_runs = max_runs;
    stats::CompareOptions o;
    o.confidence = 0.95;
    const CalibrationFigures f = calibration_figures(j, cfg, o, slowdown, runs);
    out += "=== " + title + "\n" + explain::calibration_text(j.comparison, f.calibration, f.setting);
  };
  auto timed = [](testing::SyntheticAA a, const std::string& when) {
    testing::time_calls(a, when);
    return a;
  };
  render("quiet, 2% a run", testing::synthetic_aa(0.02, 2000, 31), 10, 30, 0, 4);
  render("few calls: longer runs", testing::synthetic_aa(0.001, 40, 41), 10, 30, 0, 1);
  render("calls in a burst: more runs", timed(testing::synthetic_aa(0.15, 4000, 41), "burst"), 10, 30, 0, 2);
  render("calls spread: longer or more runs", timed(testing::synthetic_aa(0.15, 4000, 41), "spread"), 10, 30, 0, 16);
  render("a 4% slowdown within the band", testing::synthetic_aa(0.03, 2000, 31), 10, 30, 0.04, 4);
  render("noisy, past the integrated looks", testing::synthetic_aa(0.25, 2000, 31), 10, 120, 0.02, 4);
  return out;
}

TEST(CalibrationText, MatchesItsGoldenFile) {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(GATE_SOURCE_DIR) / "tests/explain/golden/calibration.txt";
  const std::string got = calibration_printout();
  const char* update = std::getenv("GATE_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << got;
    std::printf("updated golden file %s\n", file.c_str());
    return;
  }
  std::ifstream in(file);
  ASSERT_TRUE(in) << file << " is missing: run this test with GATE_UPDATE_GOLDEN=1 to create it";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(want.str(), got);
  // Reached every part (else the golden file proves less than it seems to).
  for (const char* part : {"longer runs: most of the noise", "longer runs or more runs:", "more runs (max_runs):",
                           "suggested: runs:", "note: with max_runs past", "units: 4 executions per unit",
                           "units: one execution per unit"})
    EXPECT_NE(got.find(part), std::string::npos) << part;
}

}  // namespace
}  // namespace gate::calibrate
