// The build variants real services ship, probed for real (root): position-independent
// (-buildmode=pie), externally linked cgo (CGO_ENABLED=1 -linkmode=external), stripped
// (-s -w: functions from .gopclntab, no DWARF), and all three at once. Each must count exactly
// the calls the program counts itself. Also: what a probe sees of a function that is inlined too.
#include <gtest/gtest.h>

#include <cstdio>
#include <string_view>

#include "elf/elf_file.hpp"
#include "probe/probe_fixture.hpp"

namespace gate::testing {
namespace {

struct Variant {
  std::string name;
  std::vector<std::string> flags;
  std::vector<std::string> env;
  bool pie = false, external = false, stripped = false;
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

const std::vector<Variant>& variants() {
  static const std::vector<Variant> all = {
      {"pie", {"-buildmode=pie"}, {}, true, false, false},
      {"cgo_external", {"-ldflags=-linkmode=external"}, {"CGO_ENABLED=1"}, false, true, false},
      {"stripped", {"-ldflags=-s -w"}, {}, false, false, true},
      {"pie_cgo_external_stripped",
       {"-buildmode=pie", "-ldflags=-linkmode=external -s -w"},
       {"CGO_ENABLED=1"},
       true,
       true,
       true},
  };
  return all;
}

std::string build_variant(const Variant& v) {
  GoBuild b;
  b.src_dir = std::string(GATE_SOURCE_DIR) + "/tests/go/probetarget";
  b.toolchain = probe_toolchain();
  b.flags = v.flags;
  b.env = v.env;
  return build_go(b);
}

// Is any PT_LOAD mapped at a different distance from the first one in memory than in the file?
// (Then a uprobe offset computed as vaddr - base would be wrong: it must go through the segment.)
bool has_shifted_segment(const elf::ElfFile& elf) {
  const auto& segs = elf.load_segments();
  if (segs.empty()) return false;
  const uint64_t base = segs.front().vaddr - segs.front().file_offset;
  for (const auto& s : segs)
    if (s.vaddr - s.file_offset != base) return true;
  return false;
}

class RealWorld : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override { GATE_REQUIRE_ROOT(); }
};

// The binary really is what the variant says, so that the probe test below means something.
TEST_P(RealWorld, BinaryHasTheVariantsShape) {
  const Variant& v = GetParam();
  const auto elf = elf::ElfFile::open(build_variant(v));
  EXPECT_EQ(elf.is_pie(), v.pie);
  EXPECT_EQ(!elf.has_symtab(), v.stripped);
  EXPECT_EQ(elf.section(".debug_info").has_value(), !v.stripped);
  // Externally linked cgo programs need the C library; Go's own linker links none here.
  const auto dynstr = elf.section(".dynstr");
  const bool libc = dynstr && std::string_view(reinterpret_cast<const char*>(dynstr->bytes.data()),
                                               dynstr->bytes.size()).find("libc.so") != std::string_view::npos;
  EXPECT_EQ(libc, v.external);
  std::printf("[ realworld ] %s (go%s): %s; PT_LOAD shifted from file layout: %s\n", v.name.c_str(),
              probe_toolchain().version.c_str(), elf.path().c_str(), has_shifted_segment(elf) ? "yes" : "no");
}

TEST_P(RealWorld, CallCountsEqualTheProgramsOwnCounts) {
  const Variant& v = GetParam();
  auto m = measure_workload({.binary = build_variant(v), .args = "nested -n 300", .functions = {"main.outer", "main.inner"}});
  ASSERT_EQ(m.truth.at("main.outer"), 300u);
  ASSERT_EQ(m.truth.at("main.inner"), 900u);
  for (const char* fn : {"main.outer", "main.inner"}) {
    const auto& f = m.fn(fn);
    EXPECT_EQ(f.calls, m.truth.at(fn)) << fn;
    EXPECT_EQ(f.unmatched_entries, 0u) << fn;
    EXPECT_EQ(f.unmatched_returns, 0u) << fn;
    EXPECT_EQ(f.dropped, 0u) << fn;
    EXPECT_EQ(m.info(fn).entry_placement, "stack-check-jump") << fn;
  }
  // Nesting still holds: outer's time includes its 3 inner calls.
  EXPECT_GT(m.fn("main.outer").histogram.quantile(0.5), 3 * m.fn("main.inner").histogram.quantile(0.5));
}

// Inlined copies are real calls gate cannot see: the probe counts only the out-of-line calls, and
// the result says where the others are (tests/go/inline_targets: main.scale is inlined at 3 call
// sites and also called n times through a function value).
TEST(RealWorldInlining, OnlyOutOfLineCallsAreTimedAndTheInlinedSitesAreListed) {
  GATE_REQUIRE_ROOT();
  GoBuild b;
  b.src_dir = std::string(GATE_SOURCE_DIR) + "/tests/go/inline_targets";
  b.toolchain = probe_toolchain();
  auto m = measure_workload({.binary = build_go(b), .args = "-n 200", .functions = {"main.scale", "main.callerB"}});
  ASSERT_EQ(m.truth.at("main.scale"), 200u) << "calls through the function value";
  EXPECT_EQ(m.fn("main.scale").calls, 200u) << "the 3 inlined calls per iteration are not timed";
  EXPECT_EQ(m.fn("main.callerB").calls, m.truth.at("main.callerB"));
  EXPECT_EQ(m.info("main.scale").inlined_at.size(), 3u);
  EXPECT_TRUE(m.info("main.callerB").inlined_at.empty());
}

INSTANTIATE_TEST_SUITE_P(Go, RealWorld, ::testing::ValuesIn(variants()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace gate::testing
