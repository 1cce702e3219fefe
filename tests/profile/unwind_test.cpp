// The unwinder's table (profile/unwind.hpp) against PcLines::sp_delta, searched as the kernel side
// searches it (bpf/profile.bpf.c sp_delta), at every byte of every function of tests/go/asmcpu on
// every installed toolchain; and what the walk reads from it in the assembly that loses the frame
// pointer walk its way (Go 1.19's crypto/sha256 block: BP holds the round constants' address).
#include "profile/unwind.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "profile/profile_test_support.hpp"
#include "profile_shared.h"

namespace gate::profile {
namespace {

using gate::testing::GoToolchain;

// bpf/profile.bpf.c's search: the last entry at or below the offset, none past the code or in a gap.
std::optional<int32_t> search(const UnwindTable& t, uint64_t pc) {
  if (pc < t.text_lo || pc >= t.text_hi || t.entries.empty()) return std::nullopt;
  const auto off = static_cast<uint32_t>(pc - t.text_lo);
  size_t lo = 0, hi = t.entries.size();
  for (int i = 0; i < GATE_UNWIND_SEARCH_STEPS + 1 && hi - lo > 1; ++i) {
    const size_t mid = lo + (hi - lo) / 2;
    (t.entries[mid].first <= off ? lo : hi) = mid;
  }
  if (t.entries[lo].first > off || t.entries[lo].second < 0) return std::nullopt;
  return t.entries[lo].second;
}

class UnwindTableTest : public ::testing::TestWithParam<GoToolchain> {};

TEST_P(UnwindTableTest, SearchGivesTheSpDeltaAtEveryByteOfEveryFunction) {
  const auto lines = analysis::PcLines::load(elf::ElfFile::open(gate::testing::build_asmcpu(GetParam())));
  const UnwindTable t = unwind_table(lines);
  ASSERT_GT(t.entries.size(), lines.functions().size()) << "a framed function has several SP deltas";
  for (size_t i = 1; i < t.entries.size(); ++i) ASSERT_LT(t.entries[i - 1].first, t.entries[i].first) << "unsorted at " << i;
  uint64_t checked = 0, gaps = 0;
  for (size_t i = 0; i < lines.functions().size(); ++i) {
    const auto& f = lines.functions()[i];
    for (uint64_t pc = f.address; pc < f.address + f.size; ++pc, ++checked) {
      // A negative delta (a function that popped its own return address) is no walk's start.
      auto want = lines.sp_delta(pc);
      if (want && *want < 0) want.reset();
      ASSERT_EQ(search(t, pc), want) << f.name << "+0x" << std::hex << pc - f.address;
    }
    // The padding after a function (up to the next) is no function's.
    const uint64_t next = i + 1 < lines.functions().size() ? lines.functions()[i + 1].address : t.text_hi;
    if (f.address + f.size < next) {
      EXPECT_EQ(search(t, f.address + f.size), std::nullopt) << "padding after " << f.name;
      ++gaps;
    }
  }
  EXPECT_EQ(search(t, t.text_lo - 1), std::nullopt);
  EXPECT_EQ(search(t, t.text_hi), std::nullopt);
  EXPECT_GT(gaps, 0u);
  std::printf("GATE_FIGURE go%s: %zu functions, %zu unwind entries (%zu KiB), %lu PCs checked\n",
              GetParam().version.c_str(), lines.functions().size(), t.entries.size(), t.entries.size() * 8 / 1024,
              static_cast<unsigned long>(checked));
}

// The hash loop's body, where the sampled BP is a data pointer, has a frame in the table: the return
// address is that far above SP, past the assembler's saved BP (why bpf/profile.bpf.c walks it so).
TEST_P(UnwindTableTest, AssemblyHashLoopsHaveTheirFrameInTheTable) {
  const auto lines = analysis::PcLines::load(elf::ElfFile::open(gate::testing::build_asmcpu(GetParam())));
  const UnwindTable t = unwind_table(lines);
  int found = 0;
  for (const auto& f : lines.functions()) {
    // The hash loops that use BP for data: Go 1.19's sha256.block, sha256's and sha512's blockAVX2.
    const std::string_view n = f.name;
    if (!n.ends_with("sha256.block") && !n.ends_with("sha256.blockAVX2") && !n.ends_with("sha512.blockAVX2")) continue;
    ++found;
    int32_t deepest = 0;
    for (uint64_t pc = f.address; pc < f.address + f.size; ++pc) deepest = std::max(deepest, search(t, pc).value_or(-1));
    EXPECT_EQ(search(t, f.address), 0) << f.name << " at its entry: the return address at SP";
    EXPECT_GE(deepest, 16) << f.name << ": a frame with its saved BP below the return address";
  }
  EXPECT_GE(found, 1) << "no crypto/sha256 or sha512 block function in asmcpu";
}

INSTANTIATE_TEST_SUITE_P(Toolchains, UnwindTableTest, ::testing::ValuesIn(gate::testing::go_toolchains()),
                         [](const auto& info) {
                           std::string n = "go" + info.param.version;
                           for (char& c : n) c = c == '.' ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace gate::profile
