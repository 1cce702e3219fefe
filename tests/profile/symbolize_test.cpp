// symbolize(): the leaf fix-up, inline expansion and [gate probe] attribution over raw stacks made
// from a real binary's addresses (no root: the kernel's part is replaced by the stacks it gives).
#include "profile/symbolize.hpp"
#include "profile/recorder.hpp"

#include <gtest/gtest.h>

#include "profile/profile_test_support.hpp"

namespace gate::profile {
namespace {

struct Fixture {
  analysis::PcLines lines;
  uint64_t leaf = 0, caller_three = 0, burn30 = 0, main_main = 0;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x{analysis::PcLines::load(elf::ElfFile::open(gate::testing::build_profiletarget(gate::testing::default_go())))};
    for (const auto& fn : x.lines.functions()) {
      if (fn.name == "main.leaf") x.leaf = fn.address;
      if (fn.name == "main.callerThree") x.caller_three = fn.address;
      if (fn.name == "main.burn30") x.burn30 = fn.address;
      if (fn.name == "main.main.func1") x.main_main = fn.address;
    }
    return x;
  }();
  return f;
}

std::vector<std::string> names(const Profile& p, const Sample& s) {
  std::vector<std::string> out;
  for (uint32_t id : s.locations)
    for (const auto& fr : p.locations[id].frames) out.push_back(fr.function);
  return out;
}

TEST(FixLeaf, PutsBackTheCallerAFrameLeafSkips) {
  const auto& f = fixture();
  ASSERT_TRUE(f.leaf && f.caller_three && f.main_main);
  const uint64_t ret_into_caller = f.caller_three + 12, ret_into_main = f.main_main + 20;
  std::vector<uint64_t> user = {f.leaf + 4, ret_into_main};
  EXPECT_TRUE(fix_leaf(user, ret_into_caller, 0, f.lines));
  EXPECT_EQ(user, (std::vector<uint64_t>{f.leaf + 4, ret_into_caller, ret_into_main}));
  // Already there (the walk found it): unchanged.
  EXPECT_FALSE(fix_leaf(user, ret_into_caller, 0, f.lines));
  // No text word at SP (the kernel zeroes others): unchanged.
  std::vector<uint64_t> bare = {f.leaf + 4, ret_into_main};
  EXPECT_FALSE(fix_leaf(bare, 0, ret_into_caller, f.lines));
}

TEST(FixLeaf, LeavesAFramedBodyAlone) {
  const auto& f = fixture();
  // Deep in callerThree's body (past its prologue) the SP delta is its frame: no fix-up, whatever
  // the words at SP hold.
  uint64_t body = 0;
  for (uint64_t pc = f.caller_three; !body; ++pc)
    if (f.lines.sp_delta(pc).value_or(0) > 8) body = pc;
  std::vector<uint64_t> user = {body, f.main_main + 20};
  EXPECT_FALSE(fix_leaf(user, f.burn30 + 8, f.burn30 + 8, f.lines));
  EXPECT_EQ(user.size(), 2u);
}

TEST(Symbolize, ExpandsInlinedFramesFixesLeavesAndNamesGateProbes) {
  const auto& f = fixture();
  // A PC in burn30's inlined mix: the first PC whose frames are two.
  uint64_t in_mix = 0;
  for (uint64_t pc = f.burn30; !in_mix && pc < f.burn30 + 400; ++pc)
    if (f.lines.frames(pc).size() == 2) in_mix = pc;
  ASSERT_NE(in_mix, 0u);
  RawProfile raw;
  raw.hz = 199;
  raw.stacks.push_back({{in_mix, f.main_main + 20}, {}, 0, 0, false, 0, 5});
  raw.stacks.push_back({{f.leaf + 4, f.main_main + 20}, {}, f.caller_three + 12, 0, false, 0, 3});
  raw.stacks.push_back({{0x7fff0000, f.main_main + 20}, {}, 0, 0, true, f.burn30, 2});  // XOL step
  // Two processes' vDSO (ASLR: different addresses) under one name.
  raw.stacks.push_back({{0x7f0000001b46, in_mix + 1}, {}, 0, 0, false, 0, 1});
  raw.stacks.push_back({{0x7f5500001b46, in_mix + 1}, {}, 0, 0, false, 0, 1});
  raw.no_user_stack = 1;
  raw.stack_map_full = 1;
  const Profile p = symbolize(raw, f.lines, nullptr);
  ASSERT_EQ(p.samples.size(), 5u);
  EXPECT_EQ(p.total, 13u);
  EXPECT_EQ(p.unknown_leaf, 2u);
  EXPECT_EQ(p.lost, 1u);
  EXPECT_EQ(p.lost_map_full, 1u);
  EXPECT_EQ(describe(p), "13 samples at 199 Hz; 15.4% in [gate probe]; 1 lost (1: the stacks map was full)");
  EXPECT_EQ(p.leaf_fixed, 3u);
  EXPECT_EQ(p.in_gate_probe, 2u);
  bool saw_inline = false, saw_fix = false, saw_probe = false;
  for (const auto& s : p.samples) {
    const auto n = names(p, s);
    if (n[0] == "main.mix") saw_inline = n.size() >= 3 && n[1] == "main.burn30" && n[2] == "main.main.func1";
    if (n[0] == "main.leaf") saw_fix = n[1] == "main.callerThree";
    if (n[0] == kGateProbeFrame) saw_probe = n[1] == "main.burn30";
    if (n[0] == kOutsideBinaryFrame) EXPECT_EQ(n[1], "main.mix");
  }
  EXPECT_TRUE(saw_inline);
  EXPECT_TRUE(saw_fix);
  EXPECT_TRUE(saw_probe);
}

TEST(Symbolize, KernelStackInUprobeHandlingIsAGateProbe) {
  const auto& f = fixture();
  KernelSymbols ksyms = [](uint64_t pc) { return pc == 0xffff1000 ? std::string("handle_swbp") : std::string("do_syscall_64"); };
  EXPECT_TRUE(in_uprobe_handling({0xffff2000, 0xffff1000}, ksyms));
  EXPECT_FALSE(in_uprobe_handling({0xffff2000}, ksyms));
  // The trap entries before any uprobe-named function (a sample taken there carries the probed
  // function's user stack): the breakpoint's and the single-step's.
  for (const char* entry : {"asm_exc_int3", "exc_int3", "do_int3_user", "asm_exc_debug", "exc_debug_user", "noist_exc_debug"}) {
    KernelSymbols trap = [entry](uint64_t pc) { return pc == 0xffff3000 ? std::string(entry) : std::string("irqentry_enter"); };
    EXPECT_TRUE(in_uprobe_handling({0xffff2000, 0xffff3000}, trap)) << entry;
  }
  KernelSymbols page_fault = [](uint64_t) { return std::string("exc_page_fault"); };
  EXPECT_FALSE(in_uprobe_handling({0xffff2000}, page_fault));
  RawProfile raw;
  raw.stacks.push_back({{f.burn30 + 1, f.main_main + 20}, {0xffff2000, 0xffff1000}, 0, 0, false, 0, 4});
  raw.stacks.push_back({{f.burn30 + 1, f.main_main + 20}, {0xffff2000}, 0, 0, false, 0, 6});  // a syscall
  const Profile p = symbolize(raw, f.lines, ksyms);
  EXPECT_EQ(p.in_gate_probe, 4u);
}

}  // namespace
}  // namespace gate::profile
