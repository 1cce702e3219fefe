// Tests of InlineIndex (DWARF inlined calls, runtime.g layout) and of what target preparation and
// `gate functions` make of it, against tests/go/inline_targets built by every installed toolchain.
// The truth is the Go source: each inlined call's line carries "inline-site: NAME".
#include "analysis/inlining.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "analysis/functions.hpp"
#include "analysis/reference_tools.hpp"
#include "common/error.hpp"
#include "runner/target.hpp"
#include "support/gate_cli.hpp"

namespace gate::analysis {
namespace {

using gate::testing::GoToolchain;

const std::string kSourceDir = "tests/go/inline_targets";

std::string build_inline_targets(const GoToolchain& tc, std::vector<std::string> flags = {}) {
  return gate::testing::build_go({kSourceDir, ".", tc, std::move(flags), {}});
}

// (caller, line) of every marked call site, by inlined function, read from main.go. The caller is
// the function whose `func` line last precedes the marker.
std::map<std::string, std::multiset<std::pair<std::string, int>>> marked_sites() {
  std::ifstream in(std::string(GATE_SOURCE_DIR) + "/" + kSourceDir + "/main.go");
  static const std::regex func_re(R"(^func (\([^)]*\) )?([A-Za-z0-9_]+)\()");
  static const std::regex site_re(R"(inline-site: (\S+))");
  std::map<std::string, std::multiset<std::pair<std::string, int>>> out;
  std::string caller;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.starts_with("//")) continue;  // comments may mention the marker
    std::smatch m;
    if (std::regex_search(line, m, func_re)) caller = "main." + m[2].str();
    for (auto it = std::sregex_iterator(line.begin(), line.end(), site_re); it != std::sregex_iterator(); ++it)
      out[(*it)[1].str()].insert({caller, n});
  }
  return out;
}

class InliningTest : public ::testing::TestWithParam<GoToolchain> {};

TEST_P(InliningTest, FindsEveryMarkedSiteWithCallerAndLine) {
  const std::string bin = build_inline_targets(GetParam());
  const auto elf = elf::ElfFile::open(bin);
  const auto index = InlineIndex::load(elf);
  ASSERT_TRUE(index.has_value()) << "no DWARF in " << bin;
  const auto truth = marked_sites();
  ASSERT_EQ(truth.size(), 4u);  // main.scale, main.onlyInlined, geom.Area, main.(*Counter).Inc
  for (const auto& [name, expected] : truth) {
    std::multiset<std::pair<std::string, int>> got;
    for (const auto& s : index->sites_of(name)) {
      got.insert({s.caller, s.line});
      EXPECT_TRUE(s.file.ends_with("/inline_targets/main.go")) << name << ": " << s.file;
      EXPECT_EQ(s.container, s.caller) << "not nested: the copy sits in its caller";
    }
    EXPECT_EQ(got, expected) << name;
    EXPECT_EQ(index->count_of(name), expected.size()) << name;
  }
  EXPECT_EQ(index->count_of("main.notInlined"), 0u);
  EXPECT_TRUE(index->has_out_of_line_copy("main.notInlined"));
  EXPECT_FALSE(index->knows("main.noSuchFunction"));
}

TEST_P(InliningTest, SiteAddressesLieInsideTheCallersCode) {
  const auto elf = elf::ElfFile::open(build_inline_targets(GetParam()));
  const auto table = FunctionTable::from_elf(elf);
  const auto index = InlineIndex::load(elf);
  ASSERT_TRUE(index);
  for (const char* name : {"main.scale", "main.onlyInlined", "gate.test/inlinetargets/geom.Area"}) {
    for (const auto& s : index->sites_of(name)) {
      const Function* f = table.find_containing(s.address);
      ASSERT_NE(f, nullptr) << name << " at 0x" << std::hex << s.address;
      EXPECT_EQ(f->name, s.container) << name << " at 0x" << std::hex << s.address;
    }
  }
}

TEST_P(InliningTest, OutOfLineCopiesAreKnown) {
  const auto index = InlineIndex::load(elf::ElfFile::open(build_inline_targets(GetParam())));
  ASSERT_TRUE(index);
  // scale's value is taken: it keeps a symbol besides its 3 inlined copies.
  EXPECT_TRUE(index->has_out_of_line_copy("main.scale"));
  EXPECT_TRUE(index->knows("main.onlyInlined"));
  EXPECT_FALSE(index->has_out_of_line_copy("main.onlyInlined"));
  EXPECT_FALSE(index->has_out_of_line_copy("main.(*Counter).Inc"));
  const auto only = index->inlined_only();
  EXPECT_NE(std::find(only.begin(), only.end(), "main.onlyInlined"), only.end());
  EXPECT_EQ(std::find(only.begin(), only.end(), "main.scale"), only.end());
}

TEST_P(InliningTest, RuntimeGStackHiIsAtOffset8) {
  const auto index = InlineIndex::load(elf::ElfFile::open(build_inline_targets(GetParam())));
  ASSERT_TRUE(index);
  ASSERT_TRUE(index->g_stack_hi_offset().has_value());
  EXPECT_EQ(*index->g_stack_hi_offset(), 8u);
}

// Go compresses DWARF by default; -compressdwarf=false writes it plain: both read the same.
TEST_P(InliningTest, CompressedAndPlainDwarfAgree) {
  const auto packed_elf = elf::ElfFile::open(build_inline_targets(GetParam()));
  const auto plain_elf = elf::ElfFile::open(build_inline_targets(GetParam(), {"-ldflags=-compressdwarf=false"}));
  const auto info = packed_elf.section(".debug_info"), plain_info = plain_elf.section(".debug_info");
  ASSERT_TRUE(info && plain_info);
  EXPECT_TRUE(info->flags & SHF_COMPRESSED) << "expected Go to compress .debug_info";
  EXPECT_FALSE(plain_info->flags & SHF_COMPRESSED);
  const auto packed = InlineIndex::load(packed_elf), plain = InlineIndex::load(plain_elf);
  ASSERT_TRUE(packed && plain);
  EXPECT_EQ(packed->inlined_call_count(), plain->inlined_call_count());
  EXPECT_GT(packed->inlined_call_count(), 100u) << "the standard library inlines a lot";
  for (const char* name : {"main.scale", "main.onlyInlined"})
    EXPECT_EQ(packed->count_of(name), plain->count_of(name)) << name;
}

TEST_P(InliningTest, NoDwarfGivesNullopt) {
  for (const char* flags : {"-ldflags=-w", "-ldflags=-s -w"}) {
    const auto elf = elf::ElfFile::open(build_inline_targets(GetParam(), {flags}));
    EXPECT_FALSE(InlineIndex::load(elf).has_value()) << flags;
  }
}

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_scratch(const std::string& name, const std::vector<uint8_t>& bytes) {
  const auto dir = std::filesystem::path(GATE_BINARY_DIR) / "test-scratch" / "inlining";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  return path;
}

bool warns_dwarf_unreadable(const runner::Target& t) {
  return std::any_of(t.warnings.begin(), t.warnings.end(),
                     [](const std::string& w) { return w.starts_with("DWARF unreadable: inlining cannot be checked"); });
}

// A damaged compressed .debug_info is corrupt (gate checked the zlib stream itself): the error
// names the file, the section and what still works; target preparation goes on without the check.
TEST_P(InliningTest, DamagedDwarfIsAnErrorAndTargetPreparationGoesOn) {
  const std::string good = build_inline_targets(GetParam());
  std::vector<uint8_t> bytes = slurp(good);
  const auto info = elf::ElfFile::open(good).section(".debug_info");
  ASSERT_TRUE(info && info->size > 200);
  for (uint64_t i = 100; i < 200; ++i) bytes[info->file_offset + i] ^= 0x5a;  // inside the zlib stream
  const std::string bad = write_scratch("damaged-" + gate::testing::toolchain_name(GetParam()), bytes);
  try {
    InlineIndex::load(elf::ElfFile::open(bad));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("DWARF section .debug_info is corrupt: its zlib stream does not inflate"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find(bad), std::string::npos) << msg;
    EXPECT_NE(msg.find("functions are still listed, resolved and probed"), std::string::npos) << msg;
  }
  const auto t = runner::prepare_target(bad, {"main.scale"});
  EXPECT_TRUE(warns_dwarf_unreadable(t)) << ::testing::PrintToString(t.warnings);
  EXPECT_TRUE(t.functions.at(0).measurable);
}

// DWARF that libdw refuses is not called corrupt: a unit of a DWARF version libdw does not know
// (what DWARF 5 was to Debian 12's libdwarf) gets the section, libdw's own words and what works.
TEST_P(InliningTest, DwarfTheLibraryCannotReadIsNotCalledCorrupt) {
  const std::string plain = build_inline_targets(GetParam(), {"-ldflags=-compressdwarf=false"});
  std::vector<uint8_t> bytes = slurp(plain);
  const auto info = elf::ElfFile::open(plain).section(".debug_info");
  ASSERT_TRUE(info && info->size > 16);
  ASSERT_FALSE(info->flags & SHF_COMPRESSED);
  // The first unit's header: unit_length (4), then version (2): make it a future DWARF 9.
  const uint64_t version_at = info->file_offset + 4;
  ASSERT_TRUE(bytes[version_at] == 4 || bytes[version_at] == 5);
  bytes[version_at] = 9;
  const std::string future = write_scratch("dwarf9-" + gate::testing::toolchain_name(GetParam()), bytes);
  try {
    InlineIndex::load(elf::ElfFile::open(future));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("libdw 0."), std::string::npos) << msg;
    EXPECT_NE(msg.find("cannot read DWARF section .debug_info"), std::string::npos) << msg;
    EXPECT_NE(msg.find("libdw says \""), std::string::npos) << msg;
    EXPECT_NE(msg.find("not necessarily damaged"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("corrupt"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("Corrupt"), std::string::npos) << msg;
  }
  const auto t = runner::prepare_target(future, {"main.scale"});
  EXPECT_TRUE(warns_dwarf_unreadable(t)) << ::testing::PrintToString(t.warnings);
  EXPECT_TRUE(t.functions.at(0).measurable);
  EXPECT_EQ(t.g_stack_hi_offset, 8u);
}

// The input of the old libdwarf's one fuzzer finding (a double free on a damaged .debug_rnglists
// header), kept as a regression input: libdw must end it in an error or a result, never a crash.
TEST(InlineIndexGuards, DamagedRnglistsHeaderIsAnErrorNotACrash) {
  const auto elf = elf::ElfFile::open(std::string(GATE_SOURCE_DIR) +
                                      "/tests/fuzz/corpus/regress_libdwarf_rnglists_double_free.elf");
  try {
    InlineIndex::load(elf);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    // libdw stops at the unit whose header it cannot take (the unit refers to the damaged list).
    EXPECT_NE(std::string(e.what()).find("cannot read DWARF section .debug_info (the first unit header)"),
              std::string::npos)
        << e.what();
  }
}

// ---- target preparation ---------------------------------------------------------------------

bool has_warning(const runner::Target& t, const std::string& text) {
  return std::any_of(t.warnings.begin(), t.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

TEST_P(InliningTest, TargetWarnsAboutInlinedCopiesOfAProbedFunction) {
  const auto t = runner::prepare_target(build_inline_targets(GetParam()), {"main.scale", "main.notInlined"});
  ASSERT_EQ(t.functions.size(), 2u);
  std::vector<std::string> expected;  // sorted by line: the order sites_of gives within one file
  const auto truth = marked_sites();
  for (const auto& [caller, line] : truth.at("main.scale"))
    expected.push_back(caller + " (main.go:" + std::to_string(line) + ")");
  std::sort(expected.begin(), expected.end(), [](const std::string& a, const std::string& b) {
    return std::stoi(a.substr(a.find(':') + 1)) < std::stoi(b.substr(b.find(':') + 1));
  });
  EXPECT_EQ(t.functions[0].inlined_at, expected);
  EXPECT_TRUE(t.functions[1].inlined_at.empty());
  EXPECT_TRUE(has_warning(t, "main.scale is also inlined at 3 sites (callers: main.callerA, main.callerB): "
                             "those calls are not timed"))
      << ::testing::PrintToString(t.warnings);
  EXPECT_FALSE(has_warning(t, "main.notInlined is also"));
  EXPECT_FALSE(has_warning(t, "DWARF"));
  EXPECT_EQ(t.g_stack_hi_offset, 8u);
}

TEST_P(InliningTest, AFunctionThatExistsOnlyInlinedIsAnErrorWithTheFix) {
  const std::string bin = build_inline_targets(GetParam());
  try {
    runner::prepare_target(bin, {"main.callerA", "main.onlyInlined"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("main.onlyInlined"), std::string::npos) << msg;
    EXPECT_NE(msg.find("exists only inlined"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2 site(s) (callers: main.callerB, main.callerC)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("//go:noinline"), std::string::npos) << msg;
    EXPECT_NE(msg.find("-gcflags=all=-l"), std::string::npos) << msg;
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
  }
  // A name DWARF does not know either keeps the ordinary "no such function" error.
  try {
    runner::prepare_target(bin, {"main.noSuchFunction"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no such function"), std::string::npos) << e.what();
  }
}

// The fix the error suggests works: with inlining off the function has a symbol and no copies.
TEST_P(InliningTest, SuggestedFixMakesTheFunctionProbeable) {
  if (!gate::testing::is_representative(GetParam()))
    GTEST_SKIP() << "-gcflags=all=-l rebuilds the standard library: representative toolchains only "
                    "(GATE_TEST_GO_FULL=1 runs all)";
  const auto t = runner::prepare_target(build_inline_targets(GetParam(), {"-gcflags=all=-l"}), {"main.onlyInlined"});
  ASSERT_EQ(t.functions.size(), 1u);
  EXPECT_TRUE(t.functions[0].measurable) << t.functions[0].not_measurable_reason;
  EXPECT_TRUE(t.functions[0].inlined_at.empty());
}

TEST_P(InliningTest, WithoutDwarfOneWarning) {
  const auto t = runner::prepare_target(build_inline_targets(GetParam(), {"-ldflags=-w"}),
                                        {"main.scale", "main.callerA", "main.callerB"});
  EXPECT_EQ(std::count(t.warnings.begin(), t.warnings.end(), "DWARF absent: inlining cannot be checked"), 1)
      << ::testing::PrintToString(t.warnings);
  EXPECT_EQ(t.g_stack_hi_offset, 8u) << "Go's layout when DWARF cannot say";
  for (const auto& f : t.functions) EXPECT_TRUE(f.inlined_at.empty());
}

// ---- gate functions -------------------------------------------------------------------------

gate::testing::CliOutcome gate_functions(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"functions"};
  argv.insert(argv.end(), args.begin(), args.end());
  return gate::testing::run_gate(argv);
}

TEST_P(InliningTest, FunctionsCommandShowsInlinedCounts) {
  const std::string bin = build_inline_targets(GetParam());
  auto r = gate_functions({bin, "--match", "main.*", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& f : nlohmann::json::parse(r.out)) by_name[f.at("name")] = f;
  ASSERT_TRUE(by_name.count("main.scale"));
  EXPECT_EQ(by_name["main.scale"].at("inlined"), 3);
  EXPECT_EQ(by_name["main.scale"].at("inlined_at").size(), 3u);
  EXPECT_EQ(by_name["main.notInlined"].at("inlined"), 0);
  EXPECT_NE(r.err.find("main.onlyInlined exists only inlined (2 sites)"), std::string::npos) << r.err;

  r = gate_functions({bin, "--match", "main.scale"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("inlined"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(main\.scale\s+\d+\s+\d+\s+3\s)"))) << r.out;

  r = gate_functions({build_inline_targets(GetParam(), {"-ldflags=-w"}), "--match", "main.scale", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out).at(0).at("inlined").is_null());
  EXPECT_NE(r.err.find("DWARF absent"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Go, InliningTest, ::testing::ValuesIn(gate::testing::go_toolchains()),
                         [](const auto& info) { return gate::testing::toolchain_name(info.param); });

}  // namespace
}  // namespace gate::analysis
