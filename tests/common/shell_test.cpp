// common/shell.hpp: shell words for the commands gate prints (a report's "reproduce:" line, pprof).
#include "common/shell.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

TEST(Shell, QuotesOnlyWhatTheShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_quote("examples/shop/gate.yaml"), "examples/shop/gate.yaml");
  EXPECT_EQ(shell_quote("my config.yaml"), "'my config.yaml'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("^pricing\\.Apply$"), "'^pricing\\.Apply$'");
  EXPECT_EQ(shell_join({"gate", "check", "-c", "a b.yaml"}), "gate check -c 'a b.yaml'");
}

}  // namespace
}  // namespace gate
