// Tests of find_probe_sites on x86-64 Go binaries from every installed toolchain: RETs and the
// stack-check jump agree with binutils objdump, per prologue form and over whole binaries.
#include "analysis/probe_sites.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "analysis/reference_tools.hpp"
#include "gate_shared.h"

namespace gate::analysis {

void PrintTo(CostClass c, std::ostream* os) { *os << to_string(c); }

namespace {

using gate::testing::GoToolchain;
using gate::testing::RefInsn;

struct Binary {
  std::string path;
  elf::ElfFile elf;
  FunctionTable table;
  explicit Binary(std::string p)
      : path(std::move(p)), elf(elf::ElfFile::open(path)), table(FunctionTable::from_elf(elf)) {}
  const Function& fn(const std::string& name) const {
    const Function* f = table.find_exact(name);
    if (!f) throw std::runtime_error("no function " + name);
    return *f;
  }
  ProbeSites sites(const std::string& name, EntryPolicy policy = EntryPolicy::kAuto) const {
    return find_probe_sites(elf, table, fn(name), policy);
  }
  std::vector<RefInsn> objdump(const std::string& name) const {
    const Function& f = fn(name);
    return gate::testing::objdump_function(path, f.name, f.address, f.size);
  }
};

std::set<uint64_t> ret_addresses(const std::vector<RefInsn>& ref) {
  std::set<uint64_t> out;
  for (const auto& in : ref)
    if (in.mnemonic() == "ret") out.insert(in.address);
  return out;
}

std::set<uint64_t> ret_addresses(const ProbeSites& ps) {
  std::set<uint64_t> out;
  for (const auto& s : ps.returns) out.insert(s.address);
  return out;
}

// The reference entry: the jbe right after the last `cmp 0x10(%reg),...` (stackguard0 at g+16;
// 0x18, stackguard1, in //go:systemstack runtime functions) among the first instructions; the
// first instruction when there is none.
uint64_t reference_entry(const std::vector<RefInsn>& ref) {
  static const std::regex guard_cmp(R"(^cmp\s+0x1[08]\(%r[a-z0-9]+\),%r[a-z0-9]+$)");
  uint64_t entry = ref.front().address;
  for (size_t i = 0; i + 1 < ref.size() && i < 8; ++i)
    if (std::regex_match(ref[i].text, guard_cmp) && ref[i + 1].mnemonic() == "jbe") entry = ref[i + 1].address;
  return entry;
}

class ProbeSitesGoTest : public ::testing::TestWithParam<GoToolchain> {
 protected:
  static std::map<std::string, std::unique_ptr<Binary>>& cache() {
    static std::map<std::string, std::unique_ptr<Binary>> c;
    return c;
  }
  const Binary& bin(std::vector<std::string> flags = {}) {
    const std::string path = gate::testing::build_targets(GetParam(), std::move(flags));
    auto& slot = cache()[path];
    if (!slot) slot = std::make_unique<Binary>(path);
    return *slot;
  }
  int minor() const { return std::stoi(GetParam().version.substr(2)); }
};

TEST_P(ProbeSitesGoTest, SmallFrameEntryIsTheJbeAfterCmpRsp) {
  const Binary& b = bin();
  const auto ps = b.sites("main.spinFor");
  const auto ref = b.objdump("main.spinFor");
  ASSERT_TRUE(ps.measurable) << ps.reason;
  EXPECT_EQ(ps.placement, EntryPlacement::kStackCheckJump);
  EXPECT_EQ(ps.jump_condition, GATE_JCC_BE);
  EXPECT_EQ(ref[0].text, "cmp    0x10(%r14),%rsp");
  EXPECT_EQ(ps.entry.address, ref[1].address);
  EXPECT_EQ(ps.entry.address, reference_entry(ref));
  EXPECT_TRUE(ps.entry.instruction.starts_with("jbe 0x")) << ps.entry.instruction;
  EXPECT_EQ(ps.entry.cost, CostClass::kEmulated);
  EXPECT_NE(ps.placement_reason.find("runtime.morestack_noctxt"), std::string::npos) << ps.placement_reason;
  EXPECT_EQ(ret_addresses(ps), ret_addresses(ref));
  for (const auto& r : ps.returns) {
    EXPECT_EQ(r.instruction, "ret");
    EXPECT_EQ(r.cost, CostClass::kSingleStepped);
  }
}

// Go 1.21 moved the frame-pointer save in front of the frame allocation: the instruction after
// the jbe is `sub $N,%rsp` in Go 1.19 and `push %rbp` from Go 1.21 on.
TEST_P(ProbeSitesGoTest, InstructionAfterTheJumpDependsOnGoVersion) {
  const auto ref = bin().objdump("main.spinFor");
  ASSERT_GE(ref.size(), 3u);
  if (minor() <= 20)
    EXPECT_TRUE(ref[2].text.starts_with("sub ")) << ref[2].text;
  else
    EXPECT_EQ(ref[2].text, "push   %rbp");
  EXPECT_EQ(bin().sites("main.spinFor").entry.address, ref[1].address);  // the same site either way
}

TEST_P(ProbeSitesGoTest, BigFrameEntryIsTheJbeAfterLeaCmp) {
  const Binary& b = bin();
  const auto ref = b.objdump("main.bigFrame");
  ASSERT_GE(ref.size(), 3u);
  EXPECT_TRUE(std::regex_match(ref[0].text, std::regex(R"(lea\s+-0x[0-9a-f]+\(%rsp\),%r12)"))) << ref[0].text;
  EXPECT_EQ(ref[1].text, "cmp    0x10(%r14),%r12");
  const auto ps = b.sites("main.bigFrame");
  ASSERT_TRUE(ps.measurable) << ps.reason;
  EXPECT_EQ(ps.entry.address, ref[2].address);
  EXPECT_EQ(ps.jump_condition, GATE_JCC_BE);
  EXPECT_EQ(ret_addresses(ps), ret_addresses(ref));
}

// Huge frames check SP - framesize for underflow first (jb), then compare with stackguard0
// (jbe): both jump to morestack, and the entry must be the second.
TEST_P(ProbeSitesGoTest, HugeFrameEntryIsTheLastStackCheckJump) {
  const Binary& b = bin();
  const auto ref = b.objdump("main.hugeFrame");
  ASSERT_GE(ref.size(), 5u);
  EXPECT_EQ(ref[0].text, "mov    %rsp,%r12");
  EXPECT_TRUE(ref[1].text.starts_with("sub ")) << ref[1].text;
  EXPECT_EQ(ref[2].mnemonic(), "jb");
  EXPECT_EQ(ref[3].text, "cmp    0x10(%r14),%r12");
  EXPECT_EQ(ref[4].mnemonic(), "jbe");
  const auto ps = b.sites("main.hugeFrame");
  ASSERT_TRUE(ps.measurable) << ps.reason;
  EXPECT_EQ(ps.entry.address, ref[4].address);
  EXPECT_EQ(ps.jump_condition, GATE_JCC_BE);
  EXPECT_TRUE(ps.entry.instruction.starts_with("jbe ")) << ps.entry.instruction;
}

TEST_P(ProbeSitesGoTest, NosplitLeafGetsFirstInstruction) {
  const Binary& b = bin();
  const auto ps = b.sites("main.leafAdd");
  ASSERT_TRUE(ps.measurable) << ps.reason;
  EXPECT_EQ(ps.placement, EntryPlacement::kFirstInstruction);
  EXPECT_EQ(ps.entry.address, b.fn("main.leafAdd").address);
  EXPECT_EQ(ps.jump_condition, 0);
  EXPECT_NE(ps.placement_reason.find("no stack check"), std::string::npos);
  EXPECT_EQ(ret_addresses(ps), ret_addresses(b.objdump("main.leafAdd")));
}

TEST_P(ProbeSitesGoTest, FirstInstructionPolicyOverridesTheJump) {
  const Binary& b = bin();
  const auto ps = b.sites("main.spinFor", EntryPolicy::kFirstInstruction);
  EXPECT_TRUE(ps.measurable);
  EXPECT_EQ(ps.placement, EntryPlacement::kFirstInstruction);
  EXPECT_EQ(ps.entry.address, b.fn("main.spinFor").address);
  EXPECT_EQ(ps.entry.instruction, "cmp rsp, qword ptr [r14 + 0x10]");
  EXPECT_EQ(ps.entry.cost, CostClass::kSingleStepped);
  EXPECT_EQ(ps.jump_condition, 0);
}

// 0xC3 inside a movabs immediate: a byte scan takes it for RETs, a disassembler does not.
TEST_P(ProbeSitesGoTest, C3BytesInsideAnImmediateAreNotRets) {
  const Binary& b = bin();
  const Function& f = b.fn("main.magicC3");
  const auto bytes = b.elf.read(f.address, f.size);
  const auto byte_scan = std::count(bytes.begin(), bytes.end(), uint8_t{0xc3});
  const auto ps = b.sites("main.magicC3");
  const auto ref = b.objdump("main.magicC3");
  EXPECT_GE(byte_scan, 7);  // six in the constant, one real RET
  EXPECT_EQ(ps.returns.size(), 1u);
  EXPECT_EQ(ret_addresses(ps), ret_addresses(ref));
  EXPECT_TRUE(ref.front().text.starts_with("movabs $0xc3c3c3c3c3c3")) << ref.front().text;
}

TEST_P(ProbeSitesGoTest, EveryRetOfAFunctionWithSeveralExits) {
  const Binary& b = bin();
  for (const char* name : {"main.multiReturn", "main.main", "example.com/analysis/v2.(*Cart).Checkout"}) {
    const auto ps = b.sites(name);
    EXPECT_TRUE(ps.measurable) << name << ": " << ps.reason;
    EXPECT_EQ(ret_addresses(ps), ret_addresses(b.objdump(name))) << name;
  }
  EXPECT_GE(b.sites("main.multiReturn").returns.size(), 2u);
}

TEST_P(ProbeSitesGoTest, AlwaysPanicsIsNotMeasurable) {
  const auto ps = bin().sites("main.alwaysPanics");
  EXPECT_FALSE(ps.measurable);
  EXPECT_TRUE(ps.returns.empty());
  EXPECT_NE(ps.reason.find("no RET"), std::string::npos) << ps.reason;
  EXPECT_NE(ps.reason.find("runtime.gopanic"), std::string::npos) << ps.reason;
}

TEST_P(ProbeSitesGoTest, TailJumpIsNotMeasurable) {
  const auto ps = bin().sites("main.tailJump");
  EXPECT_FALSE(ps.measurable);
  EXPECT_NE(ps.reason.find("tail jump"), std::string::npos) << ps.reason;
}

TEST_P(ProbeSitesGoTest, UndecodableBytesAreNotMeasurable) {
  const Binary& b = bin();
  const auto ps = b.sites("main.undecodable");
  EXPECT_FALSE(ps.measurable);
  EXPECT_NE(ps.reason.find("undecodable bytes at"), std::string::npos) << ps.reason;
  EXPECT_EQ(b.objdump("main.undecodable").front().text, "(bad)");  // objdump agrees
}

TEST_P(ProbeSitesGoTest, BytesNotInTheFileAreNotMeasurable) {
  const Binary& b = bin();
  const auto bss = b.elf.section(".bss");
  ASSERT_TRUE(bss);
  const auto ps = find_probe_sites(b.elf, b.table, Function{"fake.inBss", bss->address, 16});
  EXPECT_FALSE(ps.measurable);
  EXPECT_NE(ps.reason.find("not in the file"), std::string::npos) << ps.reason;
}

// Referenced as func values, the asm functions also get ABIInternal wrappers named without the
// suffix (they call the .abi0 body): name the bodies themselves.
TEST_P(ProbeSitesGoTest, CostClassOfTheFirstInstruction) {
  const Binary& b = bin();
  const std::map<std::string, CostClass> expected = {
      {"main.costNop.abi0", CostClass::kEmulated},         {"main.costNopPrefixed.abi0", CostClass::kEmulated},
      {"main.costPushRbp.abi0", CostClass::kEmulated},     {"main.costPushR12.abi0", CostClass::kEmulated},
      {"main.costJmpRel8.abi0", CostClass::kEmulated},     {"main.costJmpRel32.abi0", CostClass::kEmulated},
      {"main.costMov.abi0", CostClass::kSingleStepped},    {"main.costEndbr64.abi0", CostClass::kSingleStepped},
      {"main.costNopwCs.abi0", CostClass::kUnprobeable},   {"main.costLockAdd.abi0", CostClass::kUnprobeable},
  };
  for (const auto& [name, cost] : expected) {
    const auto ps = b.sites(name);
    EXPECT_EQ(ps.entry.cost, cost) << name << " `" << ps.entry.instruction << "`: " << to_string(ps.entry.cost);
    EXPECT_EQ(ps.measurable, cost != CostClass::kUnprobeable) << name << ": " << ps.reason;
  }
  EXPECT_EQ(b.sites("main.costEndbr64.abi0").entry.instruction, "endbr64");
  EXPECT_NE(b.sites("main.costNopwCs.abi0").reason.find("cannot carry a uprobe"), std::string::npos);
}

// Every function of the binary (runtime included): RETs and the entry jump equal objdump's.
void expect_whole_binary_agrees(const Binary& b) {
  const auto all = gate::testing::objdump_all(b.path);
  size_t checked = 0, jumps = 0, avx512_refused = 0;
  std::vector<std::string> mismatches;
  for (const auto& f : b.table.all()) {
    if (f.size == 0) continue;
    auto lo = std::lower_bound(all.begin(), all.end(), f.address, [](const RefInsn& in, uint64_t a) { return in.address < a; });
    auto hi = std::lower_bound(lo, all.end(), f.address + f.size, [](const RefInsn& in, uint64_t a) { return in.address < a; });
    const std::vector<RefInsn> ref(lo, hi);
    if (ref.empty()) continue;
    const bool bad = std::any_of(ref.begin(), ref.end(), [](const RefInsn& in) { return in.text == "(bad)"; });
    const auto ps = find_probe_sites(b.elf, b.table, f);
    if (bad) {
      if (ps.reason.find("undecodable") == std::string::npos) mismatches.push_back(f.name + ": objdump (bad), we decoded");
      continue;
    }
    if (const auto at = ps.reason.find("undecodable bytes at 0x"); !ps.measurable && at != std::string::npos) {
      // Capstone 4.0.2 (Debian 12, Ubuntu 24.04) predates AVX-512 VBMI/GFNI and some opmask moves,
      // which Go 1.26's runtime uses (internal/runtime/gc/scan, asyncPreempt saving k0-k7): gate must
      // refuse such a body, never probe a wrong decode.
      const uint64_t where = std::stoull(ps.reason.substr(at + 21), nullptr, 16);
      auto insn = std::find_if(ref.begin(), ref.end(), [&](const RefInsn& in) { return in.address == where; });
      static const std::regex avx512_register(R"(%(zmm[0-9]+|k[0-7])\b)");  // vector or opmask (kmovq)
      if (insn == ref.end() || !std::regex_search(insn->text, avx512_register))
        mismatches.push_back(f.name + ": " + ps.reason + ", objdump decodes it");
      else
        ++avx512_refused;
      continue;
    }
    if (ret_addresses(ps) != ret_addresses(ref)) mismatches.push_back(f.name + ": RETs differ");
    if (ps.entry.address != reference_entry(ref)) mismatches.push_back(f.name + ": entry differs (" + ps.entry.instruction + ")");
    jumps += ps.placement == EntryPlacement::kStackCheckJump;
    ++checked;
  }
  std::string listed;
  for (size_t i = 0; i < mismatches.size() && i < 10; ++i) listed += "\n  " + mismatches[i];
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " mismatches:" << listed;
  EXPECT_GT(checked, 1000u);
  EXPECT_GT(jumps, checked / 3);
  EXPECT_LT(avx512_refused, 100u) << "AVX-512 bodies gate cannot decode";
}

TEST_P(ProbeSitesGoTest, WholeBinaryAgreesWithObjdump) { expect_whole_binary_agrees(bin()); }

TEST_P(ProbeSitesGoTest, WholePieBinaryAgreesWithObjdump) { expect_whole_binary_agrees(bin({"-buildmode=pie"})); }

// The prologue and epilogue forms of every function in the binary, as Go's own disassembler
// prints them, with the entry and RETs gate chooses for each: the stack check in its three sizes,
// functions without one (PUSHQ BP first from 1.21), CPU-feature dispatch (CMPB internal/cpu.X86),
// and from Go 1.26 runtime bodies that start with an AVX-512 (EVEX, 0x62) instruction, which Go's
// disassembler prints as "?". The epilogue moved from ADDQ $N, SP; RET (1.19, BP restored by a
// MOVQ before) to POPQ BP; RET (1.21 on); the counts are printed so that the next change shows.
TEST_P(ProbeSitesGoTest, PrologueAndEpilogueFormsAgreeWithGoObjdump) {
  const Binary& b = bin();
  static const std::regex check(R"(^CMPQ ((SP|R12), 0x1[08]\(R14\)|0x1[08]\(R14\), (SP|R12))$)");
  std::map<std::string, size_t> forms;
  std::vector<std::string> mismatches;
  for (const auto& gf : gate::testing::go_objdump_functions(GetParam(), b.path)) {
    const auto& ref = gf.insns;
    const Function* f = ref.empty() ? nullptr : b.table.find_containing(ref.front().address);
    if (!f || f->address != ref.front().address) continue;
    uint64_t entry = ref.front().address;
    std::string form;
    for (size_t i = 0; i + 1 < ref.size() && i < 8; ++i)
      if (std::regex_match(ref[i].text, check) && ref[i + 1].mnemonic() == "JBE") {
        entry = ref[i + 1].address;
        form = i == 0 ? "stack check" : ref[0].mnemonic() == "LEAQ" ? "stack check, big frame" : "stack check, huge frame";
      }
    if (form.empty()) {
      const RefInsn& first = ref.front();
      form = first.text.starts_with("CMPB internal/cpu.X86+") ? "CPU-feature dispatch"
             : !first.bytes.empty() && first.bytes[0] == 0x62 ? "AVX-512 first"
             : first.text == "PUSHQ BP"                         ? "no check, PUSHQ BP"
                                                                : "no check, other";
    }
    ++forms[form];
    std::set<uint64_t> rets;
    for (size_t i = 0; i < ref.size(); ++i)
      if (ref[i].text == "RET") {
        rets.insert(ref[i].address);
        if (i > 0) ++forms["epilogue " + ref[i - 1].mnemonic() + "; RET"];
      }
    const auto ps = find_probe_sites(b.elf, b.table, *f);
    // Bodies Capstone 4 cannot decode (AVX-512 VBMI/GFNI) are refused: WholeBinaryAgreesWithObjdump
    // checks that against binutils, which decodes them.
    if (!ps.measurable && ps.reason.find("undecodable") != std::string::npos) continue;
    if (ps.entry.address != entry) mismatches.push_back(gf.name + " (" + form + "): entry " + ps.entry.instruction);
    // Go's disassembler can lose its way in VEX/EVEX code ("?" for EVEX up to 1.26; 1.27 reads
    // VZEROUPPER as 5 bytes): its RETs are no reference there (binutils' are, and
    // WholeBinaryAgreesWithObjdump checks every function against them).
    const bool go_lost = std::any_of(ref.begin(), ref.end(), [](const RefInsn& in) {
      return in.text == "?" || (!in.bytes.empty() && (in.bytes[0] == 0xc4 || in.bytes[0] == 0xc5 || in.bytes[0] == 0x62));
    });
    if (!go_lost && ret_addresses(ps) != rets) mismatches.push_back(gf.name + " (" + form + "): RETs differ");
  }
  std::string listed;
  for (size_t i = 0; i < mismatches.size() && i < 10; ++i) listed += "\n  " + mismatches[i];
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " mismatches:" << listed;
  const std::string all = ::testing::PrintToString(forms);
  for (const char* form : {"stack check", "stack check, big frame", "stack check, huge frame"})
    EXPECT_GT(forms[form], 0u) << form << " in go" << GetParam().version << ": " << all;
  EXPECT_GT(forms[minor() <= 20 ? "epilogue ADDQ; RET" : "epilogue POPQ; RET"], 1000u) << all;
  if (minor() >= 21) {
    EXPECT_GT(forms["no check, PUSHQ BP"], 0u) << all;
    EXPECT_GT(forms["CPU-feature dispatch"], 0u) << all;
  }
  if (minor() >= 26) {
    EXPECT_GT(forms["AVX-512 first"], 0u) << all;
  }
  std::printf("[ forms ] go%s: stack check %zu (big %zu, huge %zu), no check %zu (PUSHQ BP %zu), CPU dispatch %zu, "
              "AVX-512 %zu; epilogues POPQ %zu, ADDQ %zu\n",
              GetParam().version.c_str(), forms["stack check"], forms["stack check, big frame"],
              forms["stack check, huge frame"], forms["no check, other"] + forms["no check, PUSHQ BP"],
              forms["no check, PUSHQ BP"], forms["CPU-feature dispatch"], forms["AVX-512 first"],
              forms["epilogue POPQ; RET"], forms["epilogue ADDQ; RET"]);
}

INSTANTIATE_TEST_SUITE_P(AllGo, ProbeSitesGoTest, ::testing::ValuesIn(gate::testing::go_toolchains()),
                         [](const auto& info) { return gate::testing::toolchain_name(info.param); });

TEST(ProbeSites, UnsupportedArchitectureThrows) {
  // A 64-bit ELF header for EM_RISCV with no segments: parses, but no probe placement for it.
  std::vector<uint8_t> image(64, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::copy(std::begin(ident), std::end(ident), image.begin());
  image[16] = 2;     // ET_EXEC
  image[18] = 243;   // EM_RISCV
  image[20] = 1;     // EV_CURRENT
  image[52] = 64;    // e_ehsize
  const auto elf = elf::ElfFile::from_bytes(image, "riscv-header");
  const FunctionTable table({{"main.f", 0x1000, 4}});
  EXPECT_THROW(find_probe_sites(elf, table, table.all()[0]), gate::Error);
}

}  // namespace
}  // namespace gate::analysis
