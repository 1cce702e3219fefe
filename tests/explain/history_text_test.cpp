// gate/explain/history_text.hpp: the history commands' last line says how the values were read.
#include "explain/history_text.hpp"

#include <gtest/gtest.h>

namespace gate::explain {
namespace {

TEST(HistoryText, SpeedNoteSaysHowValuesWereRead) {
  EXPECT_EQ(speed_note(false, 0), "values as measured (--raw)\n");
  const std::string normalized = speed_note(true, 0);
  EXPECT_EQ(normalized.rfind("values speed-normalized per run", 0), 0u) << normalized;
  EXPECT_EQ(normalized.find("left raw"), std::string::npos) << normalized;
  EXPECT_EQ(normalized.back(), '\n');
  const std::string two_raw = speed_note(true, 2);
  EXPECT_NE(two_raw.find("; 2 machine(s) left raw (fewer than 5 functions per run)\n"), std::string::npos) << two_raw;
}

}  // namespace
}  // namespace gate::explain
