// The words of a measurement's own notes (explain/run_notes_text.*), from hand-built values: the lines
// reports, gate run, gate record and the Measurer's log print. No root.
#include "explain/run_notes_text.hpp"

#include <gtest/gtest.h>

namespace gate::explain {
namespace {

TEST(RunNotes, AnUncalledFunctionWithItsInliningStatus) {
  UncalledFunction f{"main.b", "head", 2, false, {"x.go:1 in main.f", "x.go:2 in main.g"}};
  EXPECT_EQ(uncalled(f),
            "main.b: no calls in any of the 2 runs of head; also inlined at 2 sites (x.go:1 in main.f; x.go:2 in "
            "main.g): calls there are not timed");
  f.side = "";
  f.runs = 1;
  f.inlined_at = {};
  EXPECT_EQ(uncalled(f), "main.b: no calls in the 1 run; no inlined copies found");
  f.inlined_at = {"a", "b", "c", "d"};
  EXPECT_EQ(inlining_status(f), "also inlined at 4 sites (a; b; c; ...): calls there are not timed");
  f.native = true;
  EXPECT_EQ(inlining_status(f),
            "a native function: gate does not look for inlined copies of C/C++ code (a call the compiler inlined is "
            "not timed)");
}

TEST(RunNotes, ARoundOffInCalls) {
  RoundCalls r;
  r.side = "head";
  r.round = "unit 7, round 3 of 4 (head)";
  r.calls = 40;
  r.median = 100;
  r.change = -0.6;
  r.calls_change = 0.5;
  const std::string line = round_calls(r);
  EXPECT_EQ(line.rfind("unit 7, round 3 of 4 (head) timed 40 calls of the declared functions, the unit's other "
                       "rounds 100 (median): -60%, past calls_change (50%); a load driver that failed part of its "
                       "requests",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("(a bounded count, not a duration)"), std::string::npos) << line;
  EXPECT_EQ(round_calls_warning(r), "calls per round (head): " + line);
  r.side = "";
  EXPECT_EQ(round_calls_warning(r), "calls per round: " + line);
  r.recorded = "unit 1, round 2 of 3 timed 5 calls, as an older file wrote it";
  EXPECT_EQ(round_calls(r), r.recorded) << "a file written before the values keeps its sentence";
}

TEST(RunNotes, ASlicedSidesNotes) {
  SliceNotes s{"head", 200, {{"main.long", 60e6}}, 7};
  const auto notes = slice_notes(s);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "main.long: p50 call 60.0 ms on head is longer than a quarter of the 200 ms slice: most of its calls "
            "straddle a switch and are dropped, which leaves the shorter ones; compare it without --slice-ms (whole "
            "runs), or with a longer slice");
  EXPECT_EQ(notes[1], "7 calls on head straddled a switch between time slices and were dropped");
  s.straddled_calls = 0;
  s.long_calls.clear();
  EXPECT_TRUE(slice_notes(s).empty());
}

}  // namespace
}  // namespace gate::explain
