// Tests of find_probe_sites on arm64 Go binaries (GOARCH=arm64, cross-compiled offline), with
// `go tool objdump` as the independent reference (binutils here cannot read arm64).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "analysis/probe_sites.hpp"
#include "analysis/reference_tools.hpp"

namespace gate::analysis {
namespace {

using gate::testing::GoToolchain;
using gate::testing::RefInsn;

constexpr int kJccArm64Ls = 3;  // what find_probe_sites reports for `b.ls` (see probe_sites.cpp)

struct Arm64Binary {
  std::string path;
  elf::ElfFile elf;
  FunctionTable table;
  std::vector<RefInsn> all;  // go tool objdump of the whole binary
  Arm64Binary(const GoToolchain& tc, std::string p)
      : path(std::move(p)),
        elf(elf::ElfFile::open(path)),
        table(FunctionTable::from_elf(elf)),
        all(gate::testing::go_objdump_function(tc, path, ".")) {
    std::sort(all.begin(), all.end(), [](const RefInsn& a, const RefInsn& b) { return a.address < b.address; });
  }

  std::vector<RefInsn> ref(const Function& f) const {
    auto lo = std::lower_bound(all.begin(), all.end(), f.address, [](const RefInsn& in, uint64_t a) { return in.address < a; });
    auto hi = std::lower_bound(lo, all.end(), f.address + f.size, [](const RefInsn& in, uint64_t a) { return in.address < a; });
    return {lo, hi};
  }
};

std::set<uint64_t> rets(const std::vector<RefInsn>& ref) {
  std::set<uint64_t> out;
  for (const auto& in : ref)
    if (in.mnemonic() == "RET") out.insert(in.address);  // "RET R27": asyncPreempt returns through R27 (Go >= 1.25)
  return out;
}

std::set<uint64_t> rets(const ProbeSites& ps) {
  std::set<uint64_t> out;
  for (const auto& s : ps.returns) out.insert(s.address);
  return out;
}

// The reference entry: the BLS right after the last `CMP R16, ...` (R16 holds stackguard0, or
// stackguard1 in //go:systemstack functions) among the first instructions, else the first one.
uint64_t reference_entry(const std::vector<RefInsn>& ref) {
  uint64_t entry = ref.front().address;
  for (size_t i = 0; i + 1 < ref.size() && i < 8; ++i)
    if (ref[i].text.starts_with("CMP R16, R") && ref[i + 1].text.starts_with("BLS ")) entry = ref[i + 1].address;
  return entry;
}

class Arm64Test : public ::testing::TestWithParam<GoToolchain> {
 protected:
  const Arm64Binary& bin() {
    static std::map<std::string, std::unique_ptr<Arm64Binary>> cache;
    const std::string path = gate::testing::build_targets(GetParam(), {}, {"GOARCH=arm64"});
    auto& slot = cache[path];
    if (!slot) slot = std::make_unique<Arm64Binary>(GetParam(), path);
    return *slot;
  }
  ProbeSites sites(const std::string& name) {
    const Function* f = bin().table.find_exact(name);
    if (!f) throw std::runtime_error("no function " + name);
    return find_probe_sites(bin().elf, bin().table, *f);
  }
  std::vector<RefInsn> ref(const std::string& name) { return bin().ref(*bin().table.find_exact(name)); }
};

TEST_P(Arm64Test, SmallFrameEntryIsTheBls) {
  const auto ps = sites("main.spinFor");
  const auto r = ref("main.spinFor");
  ASSERT_TRUE(ps.measurable) << ps.reason;
  EXPECT_EQ(r[0].text, "MOVD 16(R28), R16");
  EXPECT_EQ(r[1].text, "CMP R16, RSP");
  EXPECT_EQ(ps.entry.address, r[2].address);
  EXPECT_TRUE(ps.entry.instruction.starts_with("b.ls ")) << ps.entry.instruction;
  EXPECT_EQ(ps.placement, EntryPlacement::kStackCheckJump);
  EXPECT_EQ(ps.jump_condition, kJccArm64Ls);
  EXPECT_EQ(ps.entry.cost, CostClass::kEmulated);  // arm64 simulates branches
  EXPECT_EQ(rets(ps), rets(r));
  for (const auto& s : ps.returns) EXPECT_EQ(s.cost, CostClass::kEmulated) << s.instruction;  // and ret
}

TEST_P(Arm64Test, BigAndHugeFrameEntryIsTheLastBls) {
  for (const char* name : {"main.bigFrame", "main.hugeFrame"}) {
    const auto ps = sites(name);
    const auto r = ref(name);
    ASSERT_TRUE(ps.measurable) << name << ": " << ps.reason;
    EXPECT_EQ(ps.entry.address, reference_entry(r)) << name;
    EXPECT_NE(ps.entry.address, r.front().address) << name;
    EXPECT_EQ(ps.jump_condition, kJccArm64Ls) << name;
    EXPECT_EQ(rets(ps), rets(r)) << name;
  }
  // The huge form checks for underflow first (BCC / b.lo to morestack); the BLS comes after it.
  const auto huge = ref("main.hugeFrame");
  bool underflow_check = false;
  for (size_t i = 0; i < 6 && i < huge.size(); ++i) underflow_check |= huge[i].text.starts_with("BCC ");
  EXPECT_TRUE(underflow_check);
}

TEST_P(Arm64Test, LeafAndUnmeasurableBodies) {
  const auto leaf = sites("main.leafAdd");
  EXPECT_TRUE(leaf.measurable) << leaf.reason;
  EXPECT_EQ(leaf.placement, EntryPlacement::kFirstInstruction);
  EXPECT_EQ(rets(leaf), rets(ref("main.leafAdd")));
  const auto panics = sites("main.alwaysPanics");
  EXPECT_FALSE(panics.measurable);
  EXPECT_NE(panics.reason.find("runtime.gopanic"), std::string::npos) << panics.reason;
  const auto tail = sites("main.tailJump");
  EXPECT_FALSE(tail.measurable);
  EXPECT_NE(tail.reason.find("tail jump"), std::string::npos) << tail.reason;
  // A word that is no instruction cannot carry the entry probe.
  const auto data = sites("main.undecodable");
  EXPECT_FALSE(data.measurable);
  EXPECT_NE(data.reason.find("undecodable bytes at"), std::string::npos) << data.reason;
  EXPECT_EQ(ref("main.undecodable.abi0").front().text, "?");  // go tool objdump agrees
}

// Inside a body, a word that is no instruction (Go's arm64 assembler puts literal pools in text)
// is skipped: arm64 is fixed-width, decoding resumes at the next word. go tool objdump prints "?"
// for those, and for LSE atomics it does not know: the RETs around them must still agree.
TEST_P(Arm64Test, DataWordsInsideABodyAreSkipped) {
  size_t bodies_with_data = 0;
  for (const auto& f : bin().table.all()) {
    const auto r = bin().ref(f);
    if (r.size() < 2 || r.front().text == "?") continue;
    if (std::none_of(r.begin(), r.end(), [](const RefInsn& in) { return in.text == "?"; })) continue;
    ++bodies_with_data;
    const auto ps = find_probe_sites(bin().elf, bin().table, f);
    EXPECT_EQ(ps.reason.find("undecodable"), std::string::npos) << f.name << ": " << ps.reason;
    EXPECT_EQ(rets(ps), rets(r)) << f.name;
  }
  RecordProperty("bodies_with_data_words", static_cast<int>(bodies_with_data));
}

TEST_P(Arm64Test, CostClassOfTheFirstInstruction) {
  const std::map<std::string, CostClass> expected = {{"main.costBranch.abi0", CostClass::kEmulated},
                                                     {"main.costMov.abi0", CostClass::kSingleStepped},
                                                     {"main.costLdaxr.abi0", CostClass::kUnprobeable}};
  for (const auto& [name, cost] : expected) {
    const auto ps = sites(name);
    EXPECT_EQ(ps.entry.cost, cost) << name << " `" << ps.entry.instruction << "`: " << to_string(ps.entry.cost);
    EXPECT_EQ(ps.measurable, cost != CostClass::kUnprobeable) << name << ": " << ps.reason;
  }
}

// Every function of the binary: RETs and the entry BLS equal go tool objdump's.
TEST_P(Arm64Test, WholeBinaryAgreesWithGoObjdump) {
  size_t checked = 0, jumps = 0;
  std::vector<std::string> mismatches;
  for (const auto& f : bin().table.all()) {
    if (f.size == 0) continue;
    const auto r = bin().ref(f);
    if (r.empty()) continue;
    const auto ps = find_probe_sites(bin().elf, bin().table, f);
    if (r.front().text == "?") {  // data at the entry: checked in LeafAndUnmeasurableBodies
      if (ps.measurable) mismatches.push_back(f.name + ": data word at the entry, yet measurable");
      continue;
    }
    if (rets(ps) != rets(r)) mismatches.push_back(f.name + ": RETs differ");
    if (ps.entry.address != reference_entry(r)) mismatches.push_back(f.name + ": entry differs (" + ps.entry.instruction + ")");
    jumps += ps.placement == EntryPlacement::kStackCheckJump;
    ++checked;
  }
  std::string listed;
  for (size_t i = 0; i < mismatches.size() && i < 10; ++i) listed += "\n  " + mismatches[i];
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " mismatches:" << listed;
  EXPECT_GT(checked, 1000u);
  EXPECT_GT(jumps, checked / 3);
}

// arm64 cross builds recompile the standard library per toolchain: a representative set.
INSTANTIATE_TEST_SUITE_P(AllGo, Arm64Test, ::testing::ValuesIn(gate::testing::representative_toolchains()),
                         [](const auto& info) { return gate::testing::toolchain_name(info.param); });

}  // namespace
}  // namespace gate::analysis
