// Latency by argument at plan time: the bucket series' names, bounds with units, and what the plan
// makes of bucket_by against tests/go/args (every installed toolchain): the register and reading
// the kernel gets per argument type, and the errors for what it cannot serve. No root.
#include "plan/buckets.hpp"

#include <gtest/gtest.h>

#include "analysis/reference_tools.hpp"
#include "common/error.hpp"
#include "plan/probe_plan.hpp"
#include "support/go_build.hpp"

namespace gate::plan {
namespace {

using Read = probe::ArgBucketSpec::Read;

BucketBy by(const std::string& arg, const std::string& how, std::vector<std::string> bounds) {
  BucketBy b{arg, how, {}, bounds};
  for (const auto& t : bounds) b.bounds.push_back(parse_bound(t));
  return b;
}

TEST(Buckets, NamesSayTheRangeAsWritten) {
  EXPECT_EQ(bucket_names("pkg.Encode", by("b", "len", {"1KiB", "4KiB", "16KiB"})),
            (std::vector<std::string>{"pkg.Encode{len(b)<1KiB}", "pkg.Encode{1KiB<=len(b)<4KiB}",
                                      "pkg.Encode{4KiB<=len(b)<16KiB}", "pkg.Encode{len(b)>=16KiB}"}));
  EXPECT_EQ(bucket_names("pkg.Lookup", by("n", "value", {"10"})),
            (std::vector<std::string>{"pkg.Lookup{n<10}", "pkg.Lookup{n>=10}"}));
  EXPECT_EQ(bucket_names("pkg.(*T).M", by("p", "nil", {})),
            (std::vector<std::string>{"pkg.(*T).M{p==nil}", "pkg.(*T).M{p!=nil}"}));
}

TEST(Buckets, BoundsTakeBinaryUnits) {
  EXPECT_EQ(parse_bound("16"), 16);
  EXPECT_EQ(parse_bound("-5"), -5);
  EXPECT_EQ(parse_bound("1KiB"), 1024);
  EXPECT_EQ(parse_bound("4MiB"), 4 << 20);
  EXPECT_EQ(parse_bound("2GiB"), int64_t{2} << 30);
  EXPECT_THROW(parse_bound("1KB"), std::invalid_argument);
  EXPECT_THROW(parse_bound("x"), std::invalid_argument);
  EXPECT_THROW(parse_bound("99999999999GiB"), std::out_of_range);
}

class BucketPlanTest : public ::testing::TestWithParam<gate::testing::GoToolchain> {
 protected:
  std::string bin(std::vector<std::string> flags = {}) {
    return gate::testing::build_go({"tests/go/args", ".", GetParam(), std::move(flags), {}});
  }
  ProbePlan plan(const std::string& fn, const BucketBy& b, std::vector<std::string> flags = {}) {
    return make_plan(bin(std::move(flags)), {fn}, analysis::EntryPolicy::kAuto, {{fn, b, "gate.yaml:7"}});
  }
  std::string error(const std::string& fn, const BucketBy& b, std::vector<std::string> flags = {}) {
    try {
      plan(fn, b, std::move(flags));
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  }
  // The one ArgBucketSpec of a plan of fn with b.
  probe::ArgBucketSpec spec(const std::string& fn, const BucketBy& b) {
    const ProbePlan p = plan(fn, b);
    EXPECT_EQ(p.arg_buckets.size(), 1u);
    return p.arg_buckets.at(0);
  }
};

TEST_P(BucketPlanTest, SeriesFollowTheFunctionWithTheirOwnIds) {
  const ProbePlan p = plan("main.Encode", by("b", "len", {"1KiB", "4KiB", "16KiB"}));
  ASSERT_EQ(p.functions.size(), 5u);
  EXPECT_EQ(p.functions[0].name, "main.Encode");
  EXPECT_EQ(p.functions[4].name, "main.Encode{len(b)>=16KiB}");
  for (uint32_t i = 0; i < p.functions.size(); ++i) EXPECT_EQ(p.functions[i].id, i);
  ASSERT_EQ(p.arg_buckets.size(), 1u);
  EXPECT_EQ(p.arg_buckets[0].function_id, 0u);
  EXPECT_EQ(p.arg_buckets[0].first_id, 1u);
  EXPECT_EQ(p.arg_buckets[0].bounds, (std::vector<int64_t>{1024, 4096, 16384}));
  for (const auto& s : p.sites) EXPECT_EQ(s.cookie & 0xffffffff, 0u) << "series get no probes of their own";
}

// A string's and a slice's length is their second register; ints are sign-extended by width.
TEST_P(BucketPlanTest, EachTypeGetsItsRegisterAndReading) {
  auto s = spec("main.Encode", by("b", "len", {"1KiB"}));
  EXPECT_EQ(s.abi_register, 1);  // RBX: b's len (RAX ptr, RBX len, RCX cap)
  EXPECT_EQ(s.read, Read::kSigned);
  EXPECT_EQ(s.size, 8);
  s = spec("main.(*Store).Get", by("key", "len", {"16"}));
  EXPECT_EQ(s.abi_register, 2);  // RCX: the receiver takes RAX, key RBX (ptr) and RCX (len)
  s = spec("main.Small", by("a", "value", {"0"}));
  EXPECT_EQ(s.abi_register, 0);
  EXPECT_EQ(s.read, Read::kSigned);
  EXPECT_EQ(s.size, 1);
  s = spec("main.Small", by("u", "value", {"1000"}));
  EXPECT_EQ(s.abi_register, 1);
  EXPECT_EQ(s.read, Read::kUnsigned);
  EXPECT_EQ(s.size, 2);
  s = spec("main.Describe", by("p", "nil", {}));
  EXPECT_EQ(s.read, Read::kNil);
  EXPECT_EQ(s.bounds, std::vector<int64_t>{1});
  s = spec("main.MapLen", by("m", "len", {"10"}));
  EXPECT_EQ(s.read, Read::kDeref);
  EXPECT_EQ(s.offset, 0u);
  const std::string sum = GetParam().minor() < 21 ? "main.Sum[go.shape.int_0]" : "main.Sum[go.shape.int]";
  s = spec(sum, by("xs", "len", {"100"}));
  EXPECT_EQ(s.abi_register, 2);  // RCX: the dictionary takes RAX, xs RBX (ptr), RCX (len)
}

TEST_P(BucketPlanTest, ErrorsNameTheArgumentTheTypeAndTheFix) {
  std::string e = error("main.Encode", by("buf", "len", {"1KiB"}));
  EXPECT_NE(e.find("gate.yaml:7: bucket_by of main.Encode: has no argument \"buf\"; its arguments are: b []uint8"),
            std::string::npos) << e;
  EXPECT_NE(e.find("fix:"), std::string::npos) << e;
  e = error("main.ByValue", by("it", "len", {"1"}));
  EXPECT_NE(e.find("cannot bucket it (type main.Item, kind other) by len"), std::string::npos) << e;
  e = error("main.Count", by("n", "len", {"1"}));
  EXPECT_NE(e.find("cannot bucket n (type int, kind int) by len"), std::string::npos) << e;
  e = error("main.Encode", by("b", "len", {"1KiB"}), {"-ldflags=-w"});
  EXPECT_NE(e.find("has no DWARF, and bucket_by (gate.yaml:7) needs it"), std::string::npos) << e;
  EXPECT_NE(e.find("without -ldflags=-w"), std::string::npos) << e;
}

INSTANTIATE_TEST_SUITE_P(Go, BucketPlanTest, ::testing::ValuesIn(gate::testing::go_toolchains()),
                         [](const auto& info) { return gate::testing::toolchain_name(info.param); });

}  // namespace
}  // namespace gate::plan
