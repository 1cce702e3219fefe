// verdict::exit_code: 1 on a regression (or a suspect with fail_on_suspect), else 3 when the
// comparison measured too little, else 0; the statistics only hand it the values.
#include "verdict/exit_code.hpp"

#include <gtest/gtest.h>

namespace gate::verdict {
namespace {

TEST(ExitCode, FromTheComparisonsValues) {
  stats::Comparison c;
  EXPECT_EQ(exit_code(c, false), ExitCode::kOk);
  c.measured_too_little = true;
  EXPECT_EQ(exit_code(c, false), ExitCode::kMeasure);
  c.counts.suspect = 1;
  EXPECT_EQ(exit_code(c, false), ExitCode::kMeasure);
  EXPECT_EQ(exit_code(c, true), ExitCode::kRegression);
  c.counts.suspect = 0;
  c.benchmarks.counts.regression = 1;  // a regression decides first, over measuring too little
  EXPECT_EQ(exit_code(c, false), ExitCode::kRegression);
  c.benchmarks.counts.regression = 0;
  c.common_shift_tested = true;
  c.common_shift.verdict = stats::Verdict::kRegression;
  EXPECT_EQ(exit_code(c, false), ExitCode::kRegression);
  // Re-decided out of its regression, a comparison that measured too little still exits 3.
  c.common_shift.verdict = stats::Verdict::kUnchanged;
  EXPECT_EQ(exit_code(c, false), ExitCode::kMeasure);
}

}  // namespace
}  // namespace gate::verdict
