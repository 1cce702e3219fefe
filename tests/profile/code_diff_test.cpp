// compare_code (analysis/code_diff.hpp) over real builds of tests/profile/target: a head whose only
// change is an init pulling in encoding/json moves every main function with the same code; a head
// that also changes burn30's work constant changes burn30's code and nothing else's.
#include "analysis/code_diff.hpp"

#include <gtest/gtest.h>

#include "profile/profile_test_support.hpp"

namespace gate::analysis {
namespace {

const std::vector<std::string> kFunctions = {"main.burn30", "main.burn10", "main.burn2", "main.rest",
                                             "main.leaf",   "main.callerThree", "main.callerOne"};

std::string build(const std::string& tags) {
  std::vector<std::string> flags;
  if (!tags.empty()) flags.push_back("-tags=" + tags);
  return gate::testing::build_profiletarget(gate::testing::default_go(), flags);
}

TEST(CodeDiff, SameBinaryIsSameAndUnmoved) {
  const auto base = elf::ElfFile::open(build(""));
  for (const auto& [name, c] : compare_code(base, base, kFunctions)) {
    EXPECT_TRUE(c.in_both) << name;
    EXPECT_TRUE(c.same) << name;
    EXPECT_EQ(c.moved_bytes, 0) << name;
    EXPECT_GT(c.base_instructions, 3u) << name;
  }
}

TEST(CodeDiff, LayoutShiftIsSameCodeMoved) {
  const auto base = elf::ElfFile::open(build("")), head = elf::ElfFile::open(build("gatemoved"));
  for (const auto& [name, c] : compare_code(base, head, kFunctions)) {
    EXPECT_TRUE(c.same) << name << " only moved: its normalised code must compare equal";
    EXPECT_NE(c.moved_bytes, 0) << name << ": encoding/json is linked before main, so main's code must move";
  }
}

TEST(CodeDiff, ChangedFunctionIsNamedAndOnlyIt) {
  const auto base = elf::ElfFile::open(build("")), head = elf::ElfFile::open(build("gatemoved gatechanged"));
  const auto diff = compare_code(base, head, kFunctions);
  EXPECT_FALSE(diff.at("main.burn30").same);
  for (const auto& [name, c] : diff)
    if (name != "main.burn30") EXPECT_TRUE(c.same) << name;
  // A function missing from one side is reported, not compared.
  const auto missing = compare_code(base, head, {"main.noSuchFunction"});
  EXPECT_FALSE(missing.at("main.noSuchFunction").in_both);
}

TEST(CodeDiff, NormalisedCodeNamesCallsAndLocalBranches) {
  const auto elf = elf::ElfFile::open(build(""));
  const auto table = FunctionTable::from_elf(elf);
  const auto code = normalized_code(elf, table, *table.find_exact("main.callerThree"));
  bool calls_leaf = false;
  for (const auto& insn : code) calls_leaf = calls_leaf || insn == "call main.leaf";
  EXPECT_TRUE(calls_leaf) << ::testing::PrintToString(code);
}

// The round closure of -mode shares calls burn30, burn10, burn2 and rest directly: when only
// burn30's work changes, the closure's own code is the same and its changed callee is burn30.
TEST(CodeDiff, CalleesAreComparedTransitivelyAndTheChangedOneNamed) {
  const auto base = elf::ElfFile::open(build(""));
  const auto table = FunctionTable::from_elf(base);
  std::string round;
  for (const char* name : {"main.main.func1", "main.main.func2", "main.main.func3"}) {
    const Function* f = table.find_exact(name);
    if (!f) continue;
    std::vector<std::string> own;  // runtime.morestack_noctxt left out
    for (const auto& c : direct_callees(normalized_code(base, table, *f)))
      if (is_program_code(c)) own.push_back(c);
    if (own == std::vector<std::string>{"main.burn30", "main.burn10", "main.burn2", "main.rest"}) round = name;
  }
  ASSERT_FALSE(round.empty()) << "no closure of main calls burn30, burn10, burn2, rest in turn";
  const auto moved = compare_code(base, elf::ElfFile::open(build("gatemoved")), {round});
  EXPECT_TRUE(moved.at(round).same);
  EXPECT_TRUE(moved.at(round).callees_compared);
  EXPECT_GE(moved.at(round).callees, 4u);
  EXPECT_TRUE(moved.at(round).changed_callees.empty()) << ::testing::PrintToString(moved.at(round).changed_callees);
  const auto changed = compare_code(base, elf::ElfFile::open(build("gatemoved gatechanged")), {round});
  EXPECT_TRUE(changed.at(round).same);
  EXPECT_EQ(changed.at(round).changed_callees, std::vector<std::string>{"main.burn30"});
  // Depth 0: callees not compared.
  EXPECT_FALSE(compare_code(base, base, {round}, 0).at(round).callees_compared);
}

TEST(CodeDiff, DirectCalleesAndProgramCode) {
  EXPECT_EQ(direct_callees({"call main.leaf", "call rax", "call main.leaf", "call runtime.morestack_noctxt",
                            "call main.f+0x10", "jmp L+0x4", "call [data]"}),
            (std::vector<std::string>{"main.leaf", "runtime.morestack_noctxt"}));
  EXPECT_TRUE(is_program_code("main.leaf"));
  EXPECT_TRUE(is_program_code("example.com/shop/pricing.Apply"));
  EXPECT_TRUE(is_program_code("example.com/shop.(*Cart).Checkout"));
  EXPECT_FALSE(is_program_code("runtime.mallocgc"));
  EXPECT_FALSE(is_program_code("encoding/json.Marshal"));
  EXPECT_FALSE(is_program_code("fmt.Sprintf"));
}

}  // namespace
}  // namespace gate::analysis
