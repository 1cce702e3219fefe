// Tests of FunctionTable and resolve: exact lookup, nearest-name suggestions, and resolution against
// real Go binaries (the patterns themselves: tests/common/name_pattern_test.cpp).
#include "analysis/functions.hpp"

#include <gtest/gtest.h>

#include <set>

#include "analysis/reference_tools.hpp"
#include "common/error.hpp"

namespace gate::analysis {
namespace {

FunctionTable synthetic_table() {
  return FunctionTable({{"main.spinFor", 0x1000, 0x40},
                        {"main.main", 0x1040, 0x80},
                        {"main.tailJump.abi0", 0x10c0, 0x5},
                        {"runtime.text", 0x0f00, 0},
                        {"runtime.first", 0x0f00, 0x20},
                        {"example.com/x/v2.(*Cart).Checkout", 0x2000, 0x10},
                        {"example.com/x/v2.Cart.Total", 0x2010, 0x10},
                        {"main.spinFoo", 0x3000, 0x10}});
}

TEST(FunctionTable, SortedAndExactLookup) {
  const auto t = synthetic_table();
  EXPECT_TRUE(std::is_sorted(t.all().begin(), t.all().end(),
                             [](const Function& a, const Function& b) { return a.address < b.address; }));
  ASSERT_NE(t.find_exact("main.main"), nullptr);
  EXPECT_EQ(t.find_exact("main.main")->address, 0x1040u);
  EXPECT_EQ(t.find_exact("main.Main"), nullptr);
  ASSERT_NE(t.find_exact("main.tailJump"), nullptr);  // assembly function: symbol "main.tailJump.abi0"
  EXPECT_EQ(t.find_exact("main.tailJump")->name, "main.tailJump.abi0");
  EXPECT_EQ(t.source(), "symtab");
}

TEST(FunctionTable, FindContaining) {
  const auto t = synthetic_table();
  EXPECT_EQ(t.find_containing(0x1000)->name, "main.spinFor");
  EXPECT_EQ(t.find_containing(0x103f)->name, "main.spinFor");
  EXPECT_EQ(t.find_containing(0x1040)->name, "main.main");
  EXPECT_EQ(t.find_containing(0x0f10)->name, "runtime.first");  // not the zero-size marker
  EXPECT_EQ(t.find_containing(0x10c5), nullptr);                 // past tailJump's 5 bytes
  EXPECT_EQ(t.find_containing(0x10), nullptr);
}

TEST(FunctionTable, NearestPrefersCaseAndPackage) {
  const auto near = synthetic_table().nearest("main.spinfor", 3);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0], "main.spinFor");
  EXPECT_EQ(near[1], "main.spinFoo");
  const auto method = synthetic_table().nearest("example.com/x/v2.(*Cart).Checkot", 1);
  ASSERT_EQ(method.size(), 1u);
  EXPECT_EQ(method[0], "example.com/x/v2.(*Cart).Checkout");
}

TEST(Resolve, OrderedAndDeduplicated) {
  const auto got = resolve(synthetic_table(), {"main.main", "main.*", "main.spinFor", "example.com/x/v2.Cart.Total"});
  std::vector<std::string> names;
  for (const auto& f : got) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"main.main", "main.spinFor", "main.tailJump.abi0", "main.spinFoo",
                                             "example.com/x/v2.Cart.Total"}));
}

void expect_resolve_error(const std::vector<std::string>& patterns, const std::string& must_contain) {
  try {
    resolve(synthetic_table(), patterns);
    FAIL() << "no error";
  } catch (const gate::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("\"" + patterns.back() + "\""), std::string::npos) << msg;  // names the pattern
    EXPECT_NE(msg.find(must_contain), std::string::npos) << msg;
    EXPECT_NE(msg.find("fix:"), std::string::npos) << msg;
    EXPECT_EQ(e.exit_code(), gate::ExitCode::kUsage);
  }
}

TEST(Resolve, UnknownExactNameSuggestsNearest) {
  expect_resolve_error({"main.spinfor"}, "main.spinFor");
  expect_resolve_error({"main.main", "main.spinfor"}, "no such function");
}

TEST(Resolve, GlobMatchingNothingIsAnError) {
  expect_resolve_error({"main.zz*"}, "matches no function");
  expect_resolve_error({"example.com/x/v2.(*Cart).Pay*"}, "example.com/x/v2.(*Cart).Checkout");
}

// ---- against real binaries ---------------------------------------------------------------

class ResolveGoTest : public ::testing::TestWithParam<gate::testing::GoToolchain> {};

TEST_P(ResolveGoTest, GoNamingForms) {
  const auto elf = elf::ElfFile::open(gate::testing::build_targets(GetParam()));
  const auto table = FunctionTable::from_elf(elf);
  auto names = [&](const std::string& pattern) {
    std::vector<std::string> out;
    for (const auto& f : resolve(table, {pattern})) out.push_back(f.name);
    return out;
  };
  const std::string pkg = "example.com/analysis/v2";
  EXPECT_EQ(names(pkg + ".(*Cart).Checkout"), std::vector<std::string>{pkg + ".(*Cart).Checkout"});
  EXPECT_EQ(names(pkg + ".Cart.Total"), std::vector<std::string>{pkg + ".Cart.Total"});
  EXPECT_EQ(names(pkg + ".Adder.func1"), std::vector<std::string>{pkg + ".Adder.func1"});
  EXPECT_EQ(names(pkg + ".F"), std::vector<std::string>{pkg + ".F"});
  EXPECT_EQ(names("main.tailJump"), std::vector<std::string>{"main.tailJump.abi0"});
  // One body per GC shape: go.shape.int_0 / string_0 before Go 1.21, go.shape.int / string after.
  const auto maps = names(pkg + ".Map[...]");
  ASSERT_EQ(maps.size(), 2u);
  for (const auto& n : maps) EXPECT_TRUE(n.starts_with(pkg + ".Map[go.shape.")) << n;
  const auto push = names(pkg + ".(*Stack[...]).Push");
  ASSERT_EQ(push.size(), 1u);
  EXPECT_TRUE(push[0].starts_with(pkg + ".(*Stack[go.shape.int")) << push[0];
  // Every function of the package, and nothing from elsewhere.
  for (const auto& n : names(pkg + ".*")) EXPECT_TRUE(n.starts_with(pkg + ".")) << n;
  EXPECT_GE(names(pkg + ".*").size(), 8u);
  EXPECT_THROW(names("example.com/*.F"), gate::Error);  // '*' does not cross the '/' in the path
  EXPECT_EQ(names("example.com/**.F"), std::vector<std::string>{pkg + ".F"});
}

// Generic instantiations are named by GC shape, and the spelling moved between releases
// (go.shape.int_0 up to 1.20, go.shape.int since; stripped 1.18-1.19 binaries say only "[...]").
// On every version, with and without .symtab, gate's names and entries are those `go tool objdump`
// prints for the unstripped binary (it refuses stripped ones), elided where Go 1.18-1.19 elide.
TEST_P(ResolveGoTest, GenericShapeNamesAgreeWithGoObjdump) {
  const std::string pkg = "example.com/analysis/v2";
  const std::string full = gate::testing::build_targets(GetParam());
  std::set<std::pair<std::string, uint64_t>> reference;
  for (const auto& f : gate::testing::go_objdump_functions(GetParam(), full, R"(analysis/v2\.(Map|\(\*Stack)\[)"))
    if (!f.insns.empty()) reference.emplace(f.name, f.insns.front().address);
  const std::string int_shape = GetParam().minor() <= 20 ? "[go.shape.int_0]" : "[go.shape.int]";
  EXPECT_TRUE(std::any_of(reference.begin(), reference.end(),
                          [&](const auto& r) { return r.first == pkg + ".Map" + int_shape; }))
      << ::testing::PrintToString(reference);
  EXPECT_EQ(reference.size(), 3u) << ::testing::PrintToString(reference);
  for (const bool stripped : {false, true}) {
    const std::string bin = stripped ? gate::testing::build_targets(GetParam(), {"-ldflags=-s -w"}) : full;
    const auto table = FunctionTable::from_elf(elf::ElfFile::open(bin));
    std::set<std::pair<std::string, uint64_t>> ours, expected;
    for (const char* pattern : {".Map[...]", ".(*Stack[...]).Push"})
      for (const auto& f : resolve(table, {pkg + pattern})) ours.emplace(f.name, f.address);
    const bool elided = stripped && GetParam().minor() <= 19;
    for (const auto& [name, address] : reference)
      expected.emplace(elided ? name.substr(0, name.find('[')) + "[...]" + name.substr(name.find(']') + 1) : name, address);
    EXPECT_EQ(ours, expected) << (stripped ? "stripped" : "with .symtab");
  }
}

TEST_P(ResolveGoTest, TypoSuggestsTheRealName) {
  const auto table = FunctionTable::from_elf(elf::ElfFile::open(gate::testing::build_targets(GetParam())));
  try {
    resolve(table, {"main.spinfor"});
    FAIL() << "main.spinfor must not resolve";
  } catch (const gate::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("nearest names:\n    main.spinFor"), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(AllGo, ResolveGoTest, ::testing::ValuesIn(gate::testing::go_toolchains()),
                         [](const auto& info) { return gate::testing::toolchain_name(info.param); });

}  // namespace
}  // namespace gate::analysis
