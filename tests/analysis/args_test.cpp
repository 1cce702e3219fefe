// Tests of ArgIndex (function arguments from DWARF, their registers at entry) and of
// `gate functions --args`, against tests/go/args built by every installed toolchain.
#include "analysis/args.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/reference_tools.hpp"
#include "support/gate_cli.hpp"
#include "support/go_build.hpp"

namespace gate::analysis {
namespace {

using gate::testing::GoToolchain;

std::string build_args(const GoToolchain& tc, std::vector<std::string> flags = {}) {
  return gate::testing::build_go({"tests/go/args", ".", tc, std::move(flags), {}});
}

// "RAX,RBX" from the pieces, so that a failure prints what DWARF said.
std::string regs(const Argument& a) {
  std::string s;
  for (const auto& r : a.registers) s += (s.empty() ? "" : ",") + std::string(abi_register_name(r.abi_index));
  return s.empty() ? "(" + a.where + ")" : s;
}

const FunctionArgs& must_find(const ArgIndex& idx, const std::string& name) {
  const auto* f = idx.find(name);
  if (!f) throw std::runtime_error("DWARF has no arguments for " + name);
  return *f;
}

class ArgsTest : public ::testing::TestWithParam<GoToolchain> {
 protected:
  void SetUp() override {
    bin_ = build_args(GetParam());
    auto idx = ArgIndex::load(elf::ElfFile::open(bin_));
    ASSERT_TRUE(idx.has_value()) << "no DWARF in " << bin_;
    index_ = std::move(*idx);
  }
  // The one argument `name` of `function`, checked for kind, type and registers.
  void expect_arg(const std::string& function, size_t pos, const std::string& name, ArgKind kind,
                  const std::string& type, uint32_t size, const std::string& registers) {
    const auto& f = must_find(index_, function);
    ASSERT_LT(pos, f.args.size()) << function;
    const Argument& a = f.args[pos];
    EXPECT_EQ(a.name, name) << function;
    EXPECT_EQ(to_string(a.kind), std::string(to_string(kind))) << function << " " << name;
    EXPECT_EQ(a.type, type) << function << " " << name;
    EXPECT_EQ(a.size, size) << function << " " << name;
    EXPECT_EQ(regs(a), registers) << function << " " << name;
    EXPECT_GT(a.valid_until, f.entry) << function << " " << name;
  }
  std::string bin_;
  ArgIndex index_;
};

// The Go ABI assigns RAX, RBX, RCX, ... in order; a string takes two, a slice three.
TEST_P(ArgsTest, StringsSlicesAndIntegersInAbiRegisters) {
  expect_arg("main.Encode", 0, "b", ArgKind::kSlice, "[]uint8", 24, "RAX,RBX,RCX");
  expect_arg("main.Lookup", 0, "key", ArgKind::kString, "string", 16, "RAX,RBX");
  expect_arg("main.Count", 0, "n", ArgKind::kInt, "int", 8, "RAX");
  expect_arg("main.Small", 0, "a", ArgKind::kInt, "int8", 1, "RAX");
  expect_arg("main.Small", 1, "u", ArgKind::kUint, "uint16", 2, "RBX");
  expect_arg("main.Small", 2, "ok", ArgKind::kBool, "bool", 1, "RCX");
  expect_arg("main.Describe", 0, "p", ArgKind::kPointer, "*main.Item", 8, "RAX");
  EXPECT_EQ(must_find(index_, "main.Small").args.size(), 3u) << "results (~r0) are not arguments";
}

TEST_P(ArgsTest, ReceiverIsTheFirstArgument) {
  expect_arg("main.(*Store).Get", 0, "s", ArgKind::kPointer, "*main.Store", 8, "RAX");
  expect_arg("main.(*Store).Get", 1, "key", ArgKind::kString, "string", 16, "RBX,RCX");
}

// The shape instantiation's dictionary takes RAX but is the compiler's, not an argument.
TEST_P(ArgsTest, GenericDictionaryIsNotAnArgument) {
  const std::string name = GetParam().minor() < 21 ? "main.Sum[go.shape.int_0]" : "main.Sum[go.shape.int]";
  ASSERT_NE(index_.find(name), nullptr) << name;
  EXPECT_EQ(index_.find(name)->args.size(), 1u);
  expect_arg(name, 0, "xs", ArgKind::kSlice, GetParam().minor() < 21 ? "[]go.shape.int_0" : "[]go.shape.int", 24,
             "RBX,RCX,RDI");
}

// len(map) and len(chan) are the first word of the runtime header, as DWARF confirms.
TEST_P(ArgsTest, MapAndChanLengthFromTheRuntimeHeader) {
  expect_arg("main.MapLen", 0, "m", ArgKind::kMap, "map[string]int", 8, "RAX");
  expect_arg("main.ChanLen", 0, "c", ArgKind::kChan, "chan int", 8, "RAX");
  EXPECT_EQ(must_find(index_, "main.MapLen").args[0].len_offset, std::optional<uint32_t>(0));
  EXPECT_EQ(must_find(index_, "main.ChanLen").args[0].len_offset, std::optional<uint32_t>(0));
}

TEST_P(ArgsTest, StructsAreNamedButNotBucketable) {
  const auto& a = must_find(index_, "main.ByValue").args.at(0);
  EXPECT_EQ(a.name, "it");
  EXPECT_EQ(a.type, "main.Item");
  EXPECT_EQ(a.kind, ArgKind::kOther);
}

TEST_P(ArgsTest, NoDwarfNoIndex) {
  const auto bin = build_args(GetParam(), {"-ldflags=-w"});
  EXPECT_FALSE(ArgIndex::load(elf::ElfFile::open(bin)).has_value());
}

TEST_P(ArgsTest, GateFunctionsListsArguments) {
  const auto r = gate::testing::run_gate({"functions", bin_, "--match", "main.(*Store).Get", "--args", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  ASSERT_EQ(j[0]["args"].size(), 2u) << r.out;
  EXPECT_EQ(j[0]["args"][1]["name"], "key");
  EXPECT_EQ(j[0]["args"][1]["registers"], nlohmann::json::array({"RBX", "RCX"}));
  const auto text = gate::testing::run_gate({"functions", bin_, "--match", "main.Lookup", "--args"});
  EXPECT_NE(text.out.find("arg key string in RAX,RBX"), std::string::npos) << text.out;
}

INSTANTIATE_TEST_SUITE_P(Go, ArgsTest, ::testing::ValuesIn(gate::testing::go_toolchains()),
                         [](const auto& info) { return gate::testing::toolchain_name(info.param); });

}  // namespace
}  // namespace gate::analysis
