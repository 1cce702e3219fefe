// Tests of the .gopclntab reader: a stripped binary (-ldflags='-s -w') must give the functions the
// symbol table of its unstripped twin gives, on every installed Go version and link mode.
#include "analysis/pclntab.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/probe_sites.hpp"
#include "analysis/reference_tools.hpp"
#include "common/error.hpp"

namespace gate::analysis {
namespace {

using gate::testing::GoToolchain;

// How a twin pair is built: the same flags, once with -s -w added to the link flags.
struct LinkMode {
  std::string name;
  std::vector<std::string> flags;
  std::string ldflags;  // joined with -s -w for the stripped twin
  std::vector<std::string> env;
};

void PrintTo(const LinkMode& m, std::ostream* os) { *os << m.name; }

const std::vector<LinkMode>& link_modes() {
  static const std::vector<LinkMode> modes = {
      {"exe", {}, "", {}},
      {"pie", {"-buildmode=pie"}, "", {}},
      {"external_pie", {"-buildmode=pie"}, "-linkmode=external", {"CGO_ENABLED=1"}},
      {"arm64", {}, "", {"GOARCH=arm64"}},
  };
  return modes;
}

std::string build(const GoToolchain& tc, const LinkMode& mode, bool stripped) {
  std::vector<std::string> flags = mode.flags;
  std::string ld = mode.ldflags;
  if (stripped) ld += std::string(ld.empty() ? "" : " ") + "-s -w";
  if (!ld.empty()) flags.push_back("-ldflags=" + ld);
  return gate::testing::build_targets(tc, flags, mode.env);
}

// How the linker writes a symbol-table name into the runtime's table: assembly bodies lose
// ".abi0"; Go 1.18-1.19 also turn every bracketed part (type arguments, array lengths) into
// "[...]", so "pkg.Map[go.shape.int_0]" and "pkg.Map[go.shape.string_0]" are both "pkg.Map[...]"
// there (seen here: Go 1.19 elides, Go 1.21+ keeps the full name).
std::string as_in_pclntab(std::string name, bool elides_brackets) {
  if (name.ends_with(".abi0")) name.resize(name.size() - 5);
  if (!elides_brackets) return name;
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == '[' && depth++ == 0) out += "[...";
    if (depth == 0) out += c;
    if (c == ']' && --depth == 0) out += ']';
  }
  return out;
}

class PclntabTwinTest : public ::testing::TestWithParam<std::tuple<GoToolchain, LinkMode>> {};

TEST_P(PclntabTwinTest, StrippedGivesTheSymtabFunctionsOfItsTwin) {
  const auto& [tc, mode] = GetParam();
  const auto full = elf::ElfFile::open(build(tc, mode, false));
  const auto stripped = elf::ElfFile::open(build(tc, mode, true));
  ASSERT_TRUE(full.has_symtab());
  ASSERT_FALSE(stripped.has_symtab());
  const auto symtab = FunctionTable::from_elf(full);
  const auto pcln = FunctionTable::from_elf(stripped);
  EXPECT_EQ(symtab.source(), "symtab");
  EXPECT_EQ(pcln.source(), "gopclntab");

  // The pclntab lists exactly the Go functions: every one has a symbol of the same name, address
  // and size in the twin, and every symbol inside [runtime.text, runtime.etext) is listed.
  if (mode.name == "arm64") {  // the ELF sizes do include the padding: the table trims it
    const Function* f = symtab.find_exact("main.leafAdd");
    const auto& syms = full.function_symbols();
    auto sym = std::find_if(syms.begin(), syms.end(), [&](const elf::Symbol& s) { return s.name == f->name; });
    ASSERT_NE(sym, syms.end());
    EXPECT_EQ(f->size, 8u);  // add, ret
    EXPECT_GT(sym->size, f->size);
  }
  std::map<uint64_t, const Function*> by_address;  // zero-size markers (runtime.text) left out
  for (const auto& f : symtab.all())
    if (f.size > 0) by_address.emplace(f.address, &f);
  const Function* text = symtab.find_exact("runtime.text");
  const Function* etext = symtab.find_exact("runtime.etext");
  ASSERT_TRUE(text && etext);
  size_t go_symbols = 0;
  // The FIPS markers of Go >= 1.24 (go:textfipsstart/end, one byte each) are symbols, not functions.
  for (const auto& f : symtab.all())
    go_symbols += f.address >= text->address && f.address < etext->address && f.size > 0 && !f.name.starts_with("go:textfips");
  EXPECT_EQ(pcln.all().size(), go_symbols);
  const bool elides = std::stoi(tc.version.substr(2)) <= 19;
  size_t compared = 0;
  for (const auto& f : pcln.all()) {
    auto it = by_address.find(f.address);
    ASSERT_NE(it, by_address.end()) << f.name << " @" << std::hex << f.address;
    EXPECT_EQ(f.name, as_in_pclntab(it->second->name, elides)) << "go" << tc.version;
    EXPECT_EQ(f.size, it->second->size) << f.name;  // arm64: both without the zero padding
    ++compared;
  }
  EXPECT_GT(compared, 1000u);
}

// Probe sites from the stripped binary equal those from its twin (morestack is named by pclntab).
TEST_P(PclntabTwinTest, ProbeSitesMatchTheTwin) {
  const auto& [tc, mode] = GetParam();
  const auto full = elf::ElfFile::open(build(tc, mode, false));
  const auto stripped = elf::ElfFile::open(build(tc, mode, true));
  const auto symtab = FunctionTable::from_elf(full);
  const auto pcln = FunctionTable::from_elf(stripped);
  for (const char* name : {"main.spinFor", "main.hugeFrame", "main.leafAdd", "main.multiReturn"}) {
    const auto a = find_probe_sites(full, symtab, *symtab.find_exact(name));
    const auto b = find_probe_sites(stripped, pcln, *pcln.find_exact(name));
    EXPECT_TRUE(b.measurable) << name << ": " << b.reason;
    EXPECT_EQ(a.entry.address, b.entry.address) << name;
    EXPECT_EQ(a.entry.instruction, b.entry.instruction) << name;
    EXPECT_EQ(a.placement, b.placement) << name;
    ASSERT_EQ(a.returns.size(), b.returns.size()) << name;
    for (size_t i = 0; i < a.returns.size(); ++i) EXPECT_EQ(a.returns[i].address, b.returns[i].address);
  }
  EXPECT_EQ(resolve(pcln, {"example.com/analysis/v2.Map[...]"}).size(), 2u);
}

// Every toolchain in every x86-64 link mode; arm64 (a cross build that recompiles the standard
// library) on the representative set.
std::vector<std::tuple<GoToolchain, LinkMode>> twin_params() {
  std::vector<std::tuple<GoToolchain, LinkMode>> out;
  for (const auto& tc : gate::testing::go_toolchains())
    for (const auto& mode : link_modes())
      if (mode.name != "arm64" || gate::testing::is_representative(tc)) out.emplace_back(tc, mode);
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllGo, PclntabTwinTest, ::testing::ValuesIn(twin_params()),
                         [](const auto& info) {
                           return gate::testing::toolchain_name(std::get<0>(info.param)) + "_" +
                                  std::get<1>(info.param).name;
                         });

// Go 1.26 stopped writing pcHeader.textStart (the word after nfiles is 0): the base of every
// entry offset then comes from the moduledata. Checked in an internal link and in an external one
// (where .text, which Go's own tools take as the base, starts with C code before runtime.text),
// against the symbol table and `go tool objdump` of the unstripped twin.
class PclntabHeaderTest : public ::testing::TestWithParam<std::tuple<GoToolchain, LinkMode>> {};

TEST_P(PclntabHeaderTest, TextStartComesFromTheHeaderOrTheModuledata) {
  const auto& [tc, mode] = GetParam();
  const std::string full_path = build(tc, mode, false), stripped_path = build(tc, mode, true);
  const auto full = elf::ElfFile::open(full_path);
  const auto stripped = elf::ElfFile::open(stripped_path);
  const auto& syms = full.function_symbols();  // runtime.text: a zero-size marker symbol
  const auto text = std::find_if(syms.begin(), syms.end(), [](const elf::Symbol& s) { return s.name == "runtime.text"; });
  ASSERT_NE(text, syms.end());
  auto section = stripped.section(".gopclntab");
  if (!section) section = stripped.section(".data.rel.ro.gopclntab");
  if (section) {  // the raw header word: gone (0) from 1.26 on
    ASSERT_GE(section->bytes.size(), 32u);
    uint64_t word = 0;
    std::memcpy(&word, section->bytes.data() + 8 + 2 * 8, 8);
    if (tc.minor() >= 26) {
      EXPECT_EQ(word, 0u) << "go" << tc.version << " still writes textStart";
    } else if (mode.name == "exe") {
      EXPECT_EQ(word, text->address);
    }
  } else {
    EXPECT_LT(tc.minor(), 26) << "Go 1.26 keeps .gopclntab a section of its own after an external link";
  }
  const auto table = read_pclntab(stripped);
  EXPECT_EQ(table.text_start, text->address) << "go" << tc.version << " " << mode.name;
  if (mode.name == "external_pie") {
    EXPECT_NE(stripped.section(".text")->address, text->address) << "the case the moduledata is needed for";
  }
  // `go tool objdump` of the unstripped twin: the first instruction of main.spinFor.
  const auto ref = gate::testing::go_objdump_function(tc, full_path, "^main.spinFor$");
  ASSERT_FALSE(ref.empty());
  const auto fn = std::find_if(table.functions.begin(), table.functions.end(),
                               [](const Function& f) { return f.name == "main.spinFor"; });
  ASSERT_NE(fn, table.functions.end());
  EXPECT_EQ(fn->address, ref.front().address);
  for (const auto& in : ref) EXPECT_LT(in.address - fn->address, fn->size) << in.text;
}

INSTANTIATE_TEST_SUITE_P(AllGo, PclntabHeaderTest,
                         ::testing::Combine(::testing::ValuesIn(gate::testing::go_toolchains()),
                                            ::testing::Values(link_modes()[0], link_modes()[2])),
                         [](const auto& info) {
                           return gate::testing::toolchain_name(std::get<0>(info.param)) + "_" +
                                  std::get<1>(info.param).name;
                         });

// The header magic names the layout, one per Go release range.
TEST(Pclntab, VersionFollowsTheToolchain) {
  for (const auto& tc : gate::testing::go_toolchains()) {
    const auto elf = elf::ElfFile::open(build(tc, link_modes()[0], true));
    const auto t = read_pclntab(elf);
    const int minor = std::stoi(tc.version.substr(2));
    EXPECT_EQ(t.version, minor >= 20 ? PclntabVersion::kGo120 : PclntabVersion::kGo118) << tc.version;
    ASSERT_FALSE(t.functions.empty());
    EXPECT_EQ(t.functions.front().address, t.text_start);  // runtime.text is the first function
  }
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A stripped binary whose pclntab magic is replaced by `magic`.
elf::ElfFile with_magic(uint32_t magic) {
  const std::string path = build(gate::testing::default_go(), link_modes()[0], true);
  auto bytes = file_bytes(path);
  const auto sec = elf::ElfFile::open(path).section(".gopclntab");
  if (!sec) throw std::runtime_error("no .gopclntab");
  std::memcpy(bytes.data() + sec->file_offset, &magic, 4);
  return elf::ElfFile::from_bytes(std::move(bytes), "patched-binary");
}

void expect_error(uint32_t magic, const std::string& cause) {
  const auto elf = with_magic(magic);
  try {
    FunctionTable::from_elf(elf);
    FAIL() << "no error for magic " << std::hex << magic;
  } catch (const gate::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("patched-binary"), std::string::npos) << msg;
    EXPECT_NE(msg.find(cause), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
  }
}

TEST(Pclntab, UnknownMagicIsAnErrorNotAGuess) {
  expect_error(0xfffffff2, "unknown .gopclntab magic 0xfffffff2");
  expect_error(0x12345678, "unknown .gopclntab magic 0x12345678");
}

TEST(Pclntab, Go12LayoutIsRefusedByName) { expect_error(0xfffffffb, "Go 1.2-1.15"); }

// A known magic over a shifted header (as if a field were removed, like textStart in Go 1.26):
// refused, not misread.
TEST(Pclntab, KnownMagicWithAnUnknownLayoutIsAnError) {
  const std::string path = build(gate::testing::default_go(), link_modes()[0], true);
  auto bytes = file_bytes(path);
  const auto sec = elf::ElfFile::open(path).section(".gopclntab");
  ASSERT_TRUE(sec);
  uint8_t* words = bytes.data() + sec->file_offset + 8;
  std::memmove(words + 2 * 8, words + 3 * 8, 5 * 8);  // drop word 2 (textStart), shift the rest up
  const auto elf = elf::ElfFile::from_bytes(std::move(bytes), "shifted-binary");
  try {
    read_pclntab(elf);
    FAIL() << "no error";
  } catch (const gate::Error& e) {
    EXPECT_NE(std::string(e.what()).find("a layout this gate does not know"), std::string::npos) << e.what();
  }
}

TEST(Pclntab, CorruptOffsetsAreAnError) {
  const std::string path = build(gate::testing::default_go(), link_modes()[0], true);
  auto bytes = file_bytes(path);
  const auto sec = elf::ElfFile::open(path).section(".gopclntab");
  ASSERT_TRUE(sec);
  uint64_t functab = 0;  // header word 7 (Go >= 1.18): where {entryoff, funcoff} pairs start
  std::memcpy(&functab, bytes.data() + sec->file_offset + 8 + 7 * 8, 8);
  const uint32_t far = 0xfffffff0;
  std::memcpy(bytes.data() + sec->file_offset + functab + 4 * 8 + 4, &far, 4);  // 5th function's _func
  const auto elf = elf::ElfFile::from_bytes(std::move(bytes), "corrupt-binary");
  try {
    read_pclntab(elf);
    FAIL() << "no error";
  } catch (const gate::Error& e) {
    EXPECT_NE(std::string(e.what()).find("corrupt .gopclntab"), std::string::npos) << e.what();
  }
}

TEST(Pclntab, NotAGoBinary) {
  const auto elf = elf::ElfFile::open("/bin/true");  // stripped C program: no symtab, no pclntab
  EXPECT_FALSE(has_pclntab(elf));
  EXPECT_THROW(FunctionTable::from_elf(elf), gate::Error);
}

}  // namespace
}  // namespace gate::analysis
