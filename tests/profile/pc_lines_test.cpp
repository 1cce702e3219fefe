// PcLines (analysis/pc_lines.hpp) against independent readers: `go tool addr2line` (Go's debug/gosym)
// for function, file and line at every few bytes of the test program's own functions, on a
// stripped twin too; DWARF's inlined subroutines (libdw) for the inline chains; on every installed
// toolchain, so both inline-tree layouts (Go 1.18-1.19 and 1.20+) are read.
#include "analysis/pc_lines.hpp"

#include <algorithm>
#include "analysis/inlining.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "profile/profile_test_support.hpp"
#include "support/go_build.hpp"

namespace gate::analysis {
namespace {

using gate::testing::GoToolchain;

struct Ref {
  std::string function, file;
  int line = 0;
};

// `go tool addr2line` (Go's own pclntab reader, debug/gosym): for each PC the out-of-line function
// and the file:line of the pc-value tables, which is the innermost (inlined) frame's position.
std::vector<Ref> go_addr2line(const GoToolchain& tc, const std::string& binary, const std::vector<uint64_t>& pcs) {
  const auto dir = std::filesystem::temp_directory_path() / ("gate_pcs_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream in(dir / "pcs");
    for (uint64_t pc : pcs) in << "0x" << std::hex << pc << "\n";
  }
  const std::string out =
      gate::testing::run_capture(tc.go + " tool addr2line '" + binary + "' < '" + (dir / "pcs").string() + "'");
  std::filesystem::remove_all(dir);
  std::vector<Ref> refs;
  std::istringstream in(out);
  std::string fn, where;
  while (std::getline(in, fn) && std::getline(in, where)) {
    const auto colon = where.rfind(':');
    refs.push_back({fn, where.substr(0, colon), std::atoi(where.c_str() + colon + 1)});
  }
  return refs;
}

class PcLinesTest : public ::testing::TestWithParam<GoToolchain> {};

TEST_P(PcLinesTest, FunctionFileAndLineAgreeWithGoToolAddr2lineOnEveryFewBytesOfMain) {
  const std::string bin = gate::testing::build_profiletarget(GetParam());
  const std::string stripped = gate::testing::build_profiletarget(GetParam(), {"-ldflags=-s -w"});
  const auto lines = PcLines::load(elf::ElfFile::open(bin));
  const auto bare = PcLines::load(elf::ElfFile::open(stripped));
  ASSERT_TRUE(lines.has_inline_tree()) << "go:func.* not found in " << bin;
  ASSERT_TRUE(bare.has_inline_tree()) << "go:func.* not found in the stripped " << stripped;
  std::vector<uint64_t> pcs;
  for (const auto& f : lines.functions())
    if (f.name.starts_with("main."))
      for (uint64_t pc = f.address; pc < f.address + f.size; pc += 3) pcs.push_back(pc);
  ASSERT_GT(pcs.size(), 100u);
  const auto refs = go_addr2line(GetParam(), bin, pcs);
  ASSERT_EQ(refs.size(), pcs.size());
  size_t inlined_seen = 0;
  for (size_t i = 0; i < pcs.size(); ++i) {
    const auto got = lines.frames(pcs[i]);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got.back().function, refs[i].function) << "at 0x" << std::hex << pcs[i];
    EXPECT_EQ(got.front().file, refs[i].file) << "at 0x" << std::hex << pcs[i];
    EXPECT_EQ(got.front().line, refs[i].line) << "at 0x" << std::hex << pcs[i];
    if (got.size() > 1) ++inlined_seen;
    // The stripped twin's table gives the same frames.
    const auto twin = bare.frames(pcs[i]);
    ASSERT_EQ(twin.size(), got.size());
    for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(twin[k].function, got[k].function);
  }
  EXPECT_GT(inlined_seen, 10u) << "mix is inlined into each burner: its code must show two frames";
}

// The inline tree against DWARF's inlined subroutines (InlineIndex, libdw): at the first address
// of every inlined copy, our frames name the inlined function with its caller next (nested
// inlining: an inlined caller) and the containing function outermost.
TEST_P(PcLinesTest, InlinedFramesAgreeWithDwarfInlinedSubroutines) {
  const std::string bin = gate::testing::build_go(
      {std::string(GATE_SOURCE_DIR) + "/tests/go/inline_targets", ".", GetParam(), {}, {}});
  const auto elf = elf::ElfFile::open(bin);
  const auto lines = PcLines::load(elf);
  const auto dwarf = InlineIndex::load(elf);
  ASSERT_TRUE(dwarf);
  size_t checked = 0;
  for (const char* fn : {"main.scale", "main.onlyInlined", "gate.test/inlinetargets/geom.Area", "main.(*Counter).Inc"})
    for (const auto& site : dwarf->sites_of(fn)) {
      const auto got = lines.frames(site.address);
      ASSERT_GE(got.size(), 2u) << describe(site);
      auto at = std::find_if(got.begin(), got.end(), [&](const SourceFrame& f) { return f.function == fn; });
      ASSERT_NE(at, got.end()) << fn << " not among the frames at " << describe(site);
      EXPECT_TRUE(at->inlined);
      ASSERT_NE(at + 1, got.end());
      EXPECT_EQ((at + 1)->function, site.caller) << describe(site);
      EXPECT_EQ(got.back().function, site.container) << describe(site);
      ++checked;
    }
  EXPECT_GE(checked, 6u);
}

// Frameless leaf: the return address stays at SP all through; a framed function's SP delta is 0
// at its entry and larger in its body.
TEST_P(PcLinesTest, SpDeltaOfFramelessLeafIsZeroThroughout) {
  const auto lines = PcLines::load(elf::ElfFile::open(gate::testing::build_profiletarget(GetParam())));
  const Function* leaf = nullptr;
  const Function* framed = nullptr;
  for (const auto& f : lines.functions()) {
    if (f.name == "main.leaf") leaf = &f;
    if (f.name == "main.callerThree") framed = &f;
  }
  ASSERT_TRUE(leaf && framed);
  for (uint64_t pc = leaf->address; pc < leaf->address + leaf->size; ++pc) EXPECT_EQ(lines.sp_delta(pc), 0);
  EXPECT_EQ(lines.sp_delta(framed->address), 0);
  int64_t deepest = 0;
  for (uint64_t pc = framed->address; pc < framed->address + framed->size; ++pc)
    deepest = std::max(deepest, lines.sp_delta(pc).value_or(-1));
  EXPECT_GE(deepest, 16);
}

INSTANTIATE_TEST_SUITE_P(Toolchains, PcLinesTest, ::testing::ValuesIn(gate::testing::go_toolchains()),
                         [](const auto& info) {
                           std::string n = "go" + info.param.version;
                           for (char& c : n) c = c == '.' ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace gate::analysis
