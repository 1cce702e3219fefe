// Tests of gate::elf::ElfFile against real Go binaries built by every installed toolchain, with
// binutils (readelf, objdump) and the go command as the independent references.
#include "elf/elf_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/reference_tools.hpp"
#include "common/error.hpp"

namespace gate::elf {
namespace {

using gate::testing::GoToolchain;
using gate::testing::run_stdout;

std::vector<uint8_t> file_bytes(const std::string& path, uint64_t offset, uint64_t n) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::vector<uint8_t> b(n);
  in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(n));
  b.resize(static_cast<size_t>(in.gcount()));
  return b;
}

std::string scratch_file(const std::string& name) {
  auto dir = std::filesystem::path(GATE_BINARY_DIR) / "test-scratch" / "elf";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// readelf -sW: FUNC symbols with a nonzero value, as (address, size, name).
std::set<std::tuple<uint64_t, uint64_t, std::string>> readelf_functions(const std::string& binary) {
  std::set<std::tuple<uint64_t, uint64_t, std::string>> out;
  std::istringstream lines(run_stdout("readelf -sW --syms " + shell_quote(binary)));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string num, value, size, type, bind, vis, ndx;
    if (!(f >> num >> value >> size >> type >> bind >> vis >> ndx) || type != "FUNC") continue;
    std::string name;
    std::getline(f, name);
    name.erase(0, name.find_first_not_of(' '));
    const uint64_t addr = std::stoull(value, nullptr, 16);
    if (addr != 0) out.emplace(addr, std::stoull(size, nullptr, 0), name);
  }
  return out;
}

class ElfGoTest : public ::testing::TestWithParam<GoToolchain> {};

TEST_P(ElfGoTest, FunctionSymbolsEqualReadelf) {
  const std::string bin = gate::testing::build_targets(GetParam());
  const ElfFile elf = ElfFile::open(bin);
  EXPECT_EQ(elf.arch(), Arch::kX86_64);
  EXPECT_FALSE(elf.is_pie());
  ASSERT_TRUE(elf.has_symtab());
  std::set<std::tuple<uint64_t, uint64_t, std::string>> ours;
  for (const auto& s : elf.function_symbols()) ours.emplace(s.address, s.size, s.name);
  EXPECT_EQ(ours, readelf_functions(bin));
  EXPECT_TRUE(std::is_sorted(elf.function_symbols().begin(), elf.function_symbols().end(),
                             [](const Symbol& a, const Symbol& b) { return a.address < b.address; }));
}

TEST_P(ElfGoTest, LoadSegmentsEqualReadelf) {
  const std::string bin = gate::testing::build_targets(GetParam(), {"-buildmode=pie"});
  const ElfFile elf = ElfFile::open(bin);
  EXPECT_TRUE(elf.is_pie());
  std::vector<LoadSegment> ref;
  std::istringstream lines(run_stdout("readelf -lW " + shell_quote(bin)));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string type, off, vaddr, paddr, filesz, memsz, flags;
    if (!(f >> type >> off >> vaddr >> paddr >> filesz >> memsz) || type != "LOAD") continue;
    std::getline(f, flags);
    ref.push_back({std::stoull(vaddr, nullptr, 16), std::stoull(memsz, nullptr, 16), std::stoull(off, nullptr, 16),
                   std::stoull(filesz, nullptr, 16), flags.find('E') != std::string::npos});
  }
  ASSERT_EQ(elf.load_segments().size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_EQ(elf.load_segments()[i].vaddr, ref[i].vaddr);
    EXPECT_EQ(elf.load_segments()[i].file_offset, ref[i].file_offset);
    EXPECT_EQ(elf.load_segments()[i].filesz, ref[i].filesz);
    EXPECT_EQ(elf.load_segments()[i].memsz, ref[i].memsz);
    EXPECT_EQ(elf.load_segments()[i].executable, ref[i].executable);
  }
}

// The bytes at file_offset(addr), read straight from the file, are what objdump shows at addr.
void expect_file_offsets_match_objdump(const std::string& bin) {
  const ElfFile elf = ElfFile::open(bin);
  const auto text = elf.section(".text");
  ASSERT_TRUE(text);
  int checked = 0;
  for (const char* name : {"main.spinFor", "main.hugeFrame", "main.magicC3", "example.com/analysis/v2.F"}) {
    const Symbol* sym = nullptr;
    for (const auto& s : elf.function_symbols())
      if (s.name == name) sym = &s;
    ASSERT_NE(sym, nullptr) << name;
    const auto ref = gate::testing::objdump_function(bin, name, sym->address, sym->size);
    ASSERT_FALSE(ref.empty()) << name;
    for (const auto& in : ref) {
      const auto off = elf.file_offset(in.address);
      ASSERT_TRUE(off) << std::hex << in.address;
      EXPECT_EQ(*off, in.address - text->address + text->file_offset);  // second opinion: .text header
      EXPECT_EQ(file_bytes(bin, *off, in.bytes.size()), in.bytes) << name << " @" << std::hex << in.address;
      const auto span = elf.read(in.address, in.bytes.size());
      EXPECT_EQ(std::vector<uint8_t>(span.begin(), span.end()), in.bytes);
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

TEST_P(ElfGoTest, FileOffsetNonPie) { expect_file_offsets_match_objdump(gate::testing::build_targets(GetParam())); }

TEST_P(ElfGoTest, FileOffsetPie) {
  expect_file_offsets_match_objdump(gate::testing::build_targets(GetParam(), {"-buildmode=pie"}));
}

// An external link (gcc) lays segments out from address 0 with different vaddr - offset deltas.
TEST_P(ElfGoTest, FileOffsetExternallyLinkedPie) {
  const std::string bin = gate::testing::build_targets(GetParam(), {"-buildmode=pie", "-ldflags=-linkmode=external"},
                                                       {"CGO_ENABLED=1"});
  const ElfFile elf = ElfFile::open(bin);
  EXPECT_TRUE(elf.is_pie());
  EXPECT_EQ(elf.load_segments().front().vaddr, 0u);
  expect_file_offsets_match_objdump(bin);
}

TEST_P(ElfGoTest, FileOffsetOutsideSegments) {
  const ElfFile elf = ElfFile::open(gate::testing::build_targets(GetParam()));
  EXPECT_FALSE(elf.file_offset(0));
  const auto bss = elf.section(".bss");
  ASSERT_TRUE(bss);
  EXPECT_FALSE(elf.file_offset(bss->address));  // memory-only part of the data segment
  EXPECT_TRUE(elf.read(bss->address, 8).empty());
  const auto& last = elf.load_segments().front();
  EXPECT_TRUE(elf.read(last.vaddr + last.filesz - 4, 8).empty());  // crosses the end of the file part
}

TEST_P(ElfGoTest, GoVersionEqualsGoVersionCommand) {
  for (auto flags : {std::vector<std::string>{}, std::vector<std::string>{"-buildmode=pie"},
                     std::vector<std::string>{"-ldflags=-s -w"}}) {
    const std::string bin = gate::testing::build_targets(GetParam(), flags);
    const std::string answer = run_stdout(GetParam().go + " version " + shell_quote(bin));  // "PATH: go1.21.13"
    std::string expected = answer.substr(answer.rfind(": ") + 2);
    expected.erase(expected.find_last_not_of('\n') + 1);
    EXPECT_EQ(ElfFile::open(bin).go_version(), expected);
    EXPECT_TRUE(expected.starts_with("go" + GetParam().version)) << expected;
  }
}

TEST_P(ElfGoTest, GoBuildIdEqualsGoToolBuildid) {
  const std::string bin = gate::testing::build_targets(GetParam());
  std::string expected = run_stdout(GetParam().go + " tool buildid " + shell_quote(bin));
  expected.erase(expected.find_last_not_of("\n") + 1);
  EXPECT_EQ(ElfFile::open(bin).go_build_id(), expected);
  // Go's linker writes a GNU build id by default from Go 1.24 on (none before, unless asked):
  // whatever it wrote, readelf must see the same.
  const std::string notes = run_stdout("readelf -n " + shell_quote(bin));
  const auto at = notes.find("Build ID: ");
  const std::string readelf_id = at == std::string::npos ? "" : notes.substr(at + 10, notes.find('\n', at) - at - 10);
  EXPECT_EQ(ElfFile::open(bin).gnu_build_id(), readelf_id);
  EXPECT_EQ(readelf_id.empty(), GetParam().minor() < 24) << readelf_id;
}

TEST_P(ElfGoTest, GnuBuildIdEqualsReadelf) {
  const std::string bin = gate::testing::build_targets(GetParam(), {"-ldflags=-B 0x0123456789abcdef42"});
  EXPECT_EQ(ElfFile::open(bin).gnu_build_id(), "0123456789abcdef42");
  EXPECT_NE(run_stdout("readelf -n " + shell_quote(bin)).find("0123456789abcdef42"), std::string::npos);
}

TEST_P(ElfGoTest, Arm64Binary) {
  if (!gate::testing::is_representative(GetParam()))
    GTEST_SKIP() << "arm64 cross build: representative toolchains only (GATE_TEST_GO_FULL=1 runs all)";
  const std::string bin = gate::testing::build_targets(GetParam(), {}, {"GOARCH=arm64"});
  const ElfFile elf = ElfFile::open(bin);
  EXPECT_EQ(elf.arch(), Arch::kArm64);
  EXPECT_TRUE(elf.go_version().starts_with("go" + GetParam().version));
  EXPECT_FALSE(elf.function_symbols().empty());
}

TEST_P(ElfGoTest, FromBytesEqualsOpen) {
  const std::string bin = gate::testing::build_targets(GetParam());
  auto bytes = file_bytes(bin, 0, std::filesystem::file_size(bin));
  const ElfFile a = ElfFile::open(bin), b = ElfFile::from_bytes(std::move(bytes), "in-memory copy");
  EXPECT_EQ(b.path(), "in-memory copy");
  ASSERT_EQ(a.function_symbols().size(), b.function_symbols().size());
  EXPECT_EQ(a.go_build_id(), b.go_build_id());
  EXPECT_EQ(a.file_offset(a.function_symbols()[10].address), b.file_offset(a.function_symbols()[10].address));
}

INSTANTIATE_TEST_SUITE_P(AllGo, ElfGoTest, ::testing::ValuesIn(gate::testing::go_toolchains()),
                         [](const auto& info) { return gate::testing::toolchain_name(info.param); });

// ---- errors: each names the path, the cause and the fix -----------------------------------

void expect_error(const std::string& path, const std::string& cause) {
  try {
    ElfFile::open(path);
    FAIL() << "no error for " << path;
  } catch (const gate::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find(cause), std::string::npos) << m;
    EXPECT_NE(m.find("fix: "), std::string::npos) << m;
    EXPECT_EQ(e.exit_code(), gate::ExitCode::kUsage);
  }
}

TEST(ElfErrors, MissingFile) { expect_error(scratch_file("does-not-exist"), "No such file or directory"); }

TEST(ElfErrors, TextFileIsNotElf) {
  const std::string path = scratch_file("notes.txt");
  std::ofstream(path) << "package main\n\nfunc main() {}\n";
  expect_error(path, "not an ELF file");
}

TEST(ElfErrors, EmptyFileIsNotElf) {
  const std::string path = scratch_file("empty");
  std::ofstream{path};
  expect_error(path, "not an ELF file");
}

TEST(ElfErrors, TruncatedElf) {
  const std::string bin = gate::testing::build_targets(gate::testing::default_go());
  const auto size = std::filesystem::file_size(bin);
  for (uint64_t keep : {uint64_t{40}, uint64_t{200}, uint64_t{5000}, size / 2, size - 1}) {
    const std::string path = scratch_file("truncated-" + std::to_string(keep));
    auto bytes = file_bytes(bin, 0, keep);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    SCOPED_TRACE(keep);
    expect_error(path, "truncated ELF file");
  }
}

TEST(ElfErrors, DirectoryIsNotAnExecutable) { expect_error(GATE_BINARY_DIR, "is a directory"); }

}  // namespace
}  // namespace gate::elf
