// gate::Error keeps object, cause and fix apart while what() stays the text users see.
#include "common/error.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

TEST(Error, FieldsAndTheTextUsersSee) {
  const Error e = Error::make("baseline b.json", "does not exist\nsecond line", "record one", ExitCode::kUsage);
  EXPECT_EQ(e.object(), "baseline b.json");
  EXPECT_EQ(e.cause(), "does not exist\nsecond line");
  EXPECT_EQ(e.fix(), "record one");
  EXPECT_STREQ(e.what(), "baseline b.json: does not exist\nsecond line\n  fix: record one");
  EXPECT_EQ(e.summary(), "baseline b.json: does not exist");
  EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
}

TEST(Error, WithoutAnObjectTheCauseStandsAlone) {
  const Error e("interrupted during the build step", ExitCode::kMeasure);
  EXPECT_STREQ(e.what(), "interrupted during the build step");
  EXPECT_TRUE(e.object().empty());
  EXPECT_EQ(e.summary(), "interrupted during the build step");
  EXPECT_EQ(e.exit_code(), ExitCode::kMeasure);
  EXPECT_STREQ(Error::make("x", "y", "").what(), "x: y") << "no fix line without a fix";
}

}  // namespace
}  // namespace gate
