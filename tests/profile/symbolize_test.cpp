// symbolize(): inline expansion, [gate probe] attribution and the walk's accounting (stacks short of
// their root) over raw stacks made from a real binary's addresses (no root: the kernel's part is
// replaced by the stacks it gives).
#include "profile/symbolize.hpp"
#include "profile/recorder.hpp"
#include "profile/function_samples.hpp"

#include <gtest/gtest.h>

#include "profile/profile_test_support.hpp"

namespace gate::profile {
namespace {

struct Fixture {
  analysis::PcLines lines;
  uint64_t leaf = 0, caller_three = 0, burn30 = 0, main_main = 0, goexit = 0;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x{analysis::PcLines::load(elf::ElfFile::open(gate::testing::build_profiletarget(gate::testing::default_go())))};
    for (const auto& fn : x.lines.functions()) {
      if (fn.name == "main.leaf") x.leaf = fn.address;
      if (fn.name == "main.callerThree") x.caller_three = fn.address;
      if (fn.name == "main.burn30") x.burn30 = fn.address;
      if (fn.name == "main.main.func1") x.main_main = fn.address;
      if (fn.name == "runtime.goexit" || fn.name == "runtime.goexit.abi0") x.goexit = fn.address;
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

TEST(Symbolize, ExpandsInlinedFramesNamesGateProbesAndCountsShortWalks) {
  const auto& f = fixture();
  ASSERT_TRUE(f.leaf && f.caller_three && f.main_main && f.goexit);
  // A PC in burn30's inlined mix: the first PC whose frames are two.
  uint64_t in_mix = 0;
  for (uint64_t pc = f.burn30; !in_mix && pc < f.burn30 + 400; ++pc)
    if (f.lines.frames(pc).size() == 2) in_mix = pc;
  ASSERT_NE(in_mix, 0u);
  const uint64_t root = f.goexit + 1;  // a goroutine's first frame returns into runtime.goexit
  RawProfile raw;
  raw.hz = 199;
  raw.stacks.push_back({{in_mix, f.main_main + 20, root}, {}, true, false, false, 0, 5});
  // The frameless leaf: its caller from the table where the frame pointer skipped it.
  raw.stacks.push_back({{f.leaf + 4, f.caller_three + 12, f.main_main + 20, root}, {}, true, true, false, 0, 3});
  raw.stacks.push_back({{0x7fff0000, f.main_main + 20, root}, {}, false, false, true, f.burn30, 2});  // XOL step
  // Two processes' vDSO (ASLR: different addresses) under one name.
  raw.stacks.push_back({{0x7f0000001b46, in_mix + 1, f.main_main + 20, root}, {}, false, false, false, 0, 1});
  raw.stacks.push_back({{0x7f5500001b46, in_mix + 1, f.main_main + 20, root}, {}, false, false, false, 0, 1});
  // Walks that stopped short: at the leaf (a round constant read as a frame, as Go 1.19's
  // sha256.block makes the frame-pointer walk do), and after its caller.
  raw.stacks.push_back({{in_mix, 0xe9b5dba5b5c0fbcf}, {}, false, true, false, 0, 7});
  raw.stacks.push_back({{f.leaf + 4, f.caller_three + 12}, {}, true, true, false, 0, 4});
  raw.no_user_stack = 1;
  raw.stack_map_full = 1;
  const Profile p = symbolize(raw, f.lines, nullptr);
  ASSERT_EQ(p.samples.size(), 7u);
  EXPECT_EQ(p.total, 24u);
  EXPECT_EQ(p.unknown_leaf, 2u);
  EXPECT_EQ(p.lost, 1u);
  EXPECT_EQ(p.lost_map_full, 1u);
  EXPECT_EQ(describe(p), "24 samples at 199 Hz; 8.3% in [gate probe]; 1 lost (1: the stacks map was full); 11 not walked to their root");
  EXPECT_EQ(p.by_table, 12u);
  EXPECT_EQ(p.fp_differed, 14u);
  EXPECT_EQ(p.no_caller, 7u);
  EXPECT_EQ(p.not_to_root, 11u);
  EXPECT_EQ(p.in_gate_probe, 2u);
  bool saw_inline = false, saw_leaf = false, saw_probe = false;
  for (const auto& s : p.samples) {
    const auto n = names(p, s);
    if (n[0] == "main.mix" && n.size() == 4) saw_inline = n[1] == "main.burn30" && n[2] == "main.main.func1";
    if (n[0] == "main.leaf" && n.size() == 4) saw_leaf = n[1] == "main.callerThree";
    if (n[0] == kGateProbeFrame) saw_probe = n[1] == "main.burn30";
    if (n[0] == kOutsideBinaryFrame) EXPECT_EQ(n[1], "main.mix");
    // The root's location says so, and no other.
    for (size_t i = 0; i < s.locations.size(); ++i)
      EXPECT_EQ(p.locations[s.locations[i]].root, n.back().rfind("runtime.goexit", 0) == 0 && i + 1 == s.locations.size()) << n[0];
  }
  EXPECT_TRUE(saw_inline);
  EXPECT_TRUE(saw_leaf);
  EXPECT_TRUE(saw_probe);
}

// The per-function account of stacks walked short: such a stack counts as lost for the asked
// functions its outermost code was seen under in whole stacks, and for no other.
TEST(SamplesByFunction, ShortWalksCountForTheFunctionsTheirCodeRunsUnder) {
  const auto& f = fixture();
  const uint64_t root = f.goexit + 1;
  RawProfile raw;
  raw.hz = 199;
  raw.stacks.push_back({{f.leaf + 4, f.caller_three + 12, f.main_main + 20, root}, {}, true, true, false, 0, 10});
  raw.stacks.push_back({{f.leaf + 4}, {}, true, true, false, 0, 6});              // leaf alone: seen under callerThree
  raw.stacks.push_back({{f.burn30 + 9, 0xe9b5dba5b5c0fbcf}, {}, false, true, false, 0, 4});  // holds burn30 itself
  raw.stacks.push_back({{f.leaf + 4, f.caller_three + 12}, {}, true, true, false, 0, 3});  // callerThree found: not lost
  const Profile p = symbolize(raw, f.lines, nullptr);
  const auto s = samples_by_function(p, {"main.callerThree", "main.main.func1", "main.burn30"});
  EXPECT_EQ(s[0].self, 13u);
  EXPECT_EQ(s[0].lost, 6u);
  EXPECT_EQ(s[1].lost, 6u);   // main.main.func1 is outside callerThree too
  EXPECT_EQ(s[2].lost, 0u);   // burn30's own short walk holds burn30: its self, not a loss
  EXPECT_EQ(s[2].self, 4u);
  EXPECT_EQ(p.not_to_root, 13u);
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
  raw.stacks.push_back({{f.burn30 + 1, f.main_main + 20}, {0xffff2000, 0xffff1000}, false, false, false, 0, 4});
  raw.stacks.push_back({{f.burn30 + 1, f.main_main + 20}, {0xffff2000}, false, false, false, 0, 6});  // a syscall
  const Profile p = symbolize(raw, f.lines, ksyms);
  EXPECT_EQ(p.in_gate_probe, 4u);
}

}  // namespace
}  // namespace gate::profile
