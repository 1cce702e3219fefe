// gate/plan without Go toolchains or root: the cookie layout against the BPF header's macro, the
// DWARF loader's note for a binary without DWARF, and the binary checks of make_plan. The plan of
// real Go binaries is tested in tests/analysis/inlining_test and the probe tests.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.hpp"
#include "plan/cookie.hpp"
#include "plan/dwarf.hpp"
#include "plan/probe_plan.hpp"

extern "C" {
#include "gate_shared.h"
}

namespace gate::plan {
namespace {

TEST(Cookie, MatchesTheBpfLayout) {
  EXPECT_EQ(encode_cookie({7, SiteKind::kEntryJump, GATE_JCC_BE}), GATE_COOKIE(7, GATE_SITE_ENTRY_JCC, GATE_JCC_BE));
  EXPECT_EQ(encode_cookie({0xfffffffe, SiteKind::kReturn, 0}), GATE_COOKIE(0xfffffffe, GATE_SITE_RETURN, 0));
  EXPECT_EQ(encode_cookie({3, SiteKind::kEntry, 0}), (uint64_t{2} << 32) | 3);
}

TEST(Cookie, RoundTrips) {
  for (const Cookie c : {Cookie{0, SiteKind::kEntry, 0}, Cookie{12345, SiteKind::kEntryJump, GATE_JCC_B},
                         Cookie{0xffffffff, SiteKind::kReturn, 0}})
    EXPECT_EQ(decode_cookie(encode_cookie(c)), c);
}

// /bin/true: an ELF file every Debian machine has, stripped, not Go.
TEST(Plan, ABinaryWithoutDwarfGetsANoteNotAnError) {
  const auto elf = elf::ElfFile::open("/bin/true");
  const Inlining i = load_inlining(elf);
  EXPECT_FALSE(i.index.has_value());
  EXPECT_EQ(i.note, "DWARF absent: inlining cannot be checked");
}

std::string plan_error(const std::string& binary) {
  try {
    make_plan(binary, {"main.f"});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Plan, RefusesWhatItCannotProbe) {
  EXPECT_NE(plan_error("/no/such/binary").find("/no/such/binary: does not exist"), std::string::npos);
  const std::string not_go = plan_error("/bin/true");
  EXPECT_NE(not_go.find("is not a Go binary"), std::string::npos) << not_go;
}

TEST(Plan, GoVersions) {
  EXPECT_EQ(parse_go_version("go1.21.13"), std::make_pair(1, 21));
  EXPECT_EQ(parse_go_version("devel"), std::make_pair(0, 0));
}

}  // namespace
}  // namespace gate::plan
