// Tests of annotate/change_notes without root or binaries: the pprof command and its regular
// expression, the calls a result holds, and a machine-code note that cannot be made (a warning
// logged, the code note left unset, never an exception out of the annotations).
#include "annotate/change_notes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gate::annotate {
namespace {

TEST(ChangeNotes, RegexQuoteEscapesEveryPprofMetacharacter) {
  EXPECT_EQ(regex_quote("main.(*T).Get[...]"), "main\\.\\(\\*T\\)\\.Get\\[\\.\\.\\.\\]");
  EXPECT_EQ(regex_quote("plain"), "plain");
  EXPECT_EQ(regex_quote("a+b?c|d{1}^$\\"), "a\\+b\\?c\\|d\\{1\\}\\^\\$\\\\");
}

TEST(ChangeNotes, PprofDiffCommandQuotesPathsAndAnchorsTheFunction) {
  EXPECT_EQ(pprof_diff_command("base.pprof", "head.pprof", "main.hot"),
            "go tool pprof -diff_base base.pprof -show_from='^main\\.hot$' head.pprof");
  EXPECT_EQ(pprof_diff_command("my dir/base.pprof", "h.pprof", "f"),
            "go tool pprof -diff_base 'my dir/base.pprof' -show_from='^f$' h.pprof");
}

TEST(ChangeNotes, TotalCallsSumsEveryRunAndIsZeroForAnUnknownFunction) {
  ResultFile r;
  for (uint64_t calls : {3u, 4u}) {
    RunResult run;
    FunctionRun f;
    f.name = FunctionName("main.f");
    f.calls = calls;
    run.functions.push_back(f);
    r.runs.push_back(run);
  }
  EXPECT_EQ(total_calls(r, "main.f"), 7u);
  EXPECT_EQ(total_calls(r, "main.g"), 0u);
}

TEST(ChangeNotes, AnUnreadableBinaryLogsAWarningAndLeavesNoCodeNote) {
  stats::Comparison c;
  stats::FunctionComparison f;
  f.name = "main.f";
  c.functions.push_back(f);
  Annotations notes;
  std::vector<std::string> lines;
  note_code(notes, c, "/nonexistent/base", "/nonexistent/head", [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("warning: machine code not compared: ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("/nonexistent/"), std::string::npos) << "names the binary it could not read: " << lines[0];
  EXPECT_FALSE(notes.functions.count("main.f") && notes.functions["main.f"].code.has_value());
  // No binaries at all (gate check: a baseline keeps none): nothing to compare, nothing logged.
  note_code(notes, c, "", "", [&](const std::string& l) { lines.push_back(l); });
  EXPECT_EQ(lines.size(), 1u);
}

}  // namespace
}  // namespace gate::annotate
