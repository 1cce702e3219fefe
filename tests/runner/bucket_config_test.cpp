// gate.yaml's bucket_by (latency by argument): what is accepted, and the errors for what is not,
// each naming the line, the key and the fix. No binary needed: argument checks are the plan's.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "runner/config.hpp"

namespace gate::runner {
namespace {

Config parse(const std::string& fn_entry) {
  return parse_config("binary: bin/x\nworkload: y\nfunctions:\n  - " + fn_entry + "\n", "/repo/gate.yaml");
}

std::string error_of(const std::string& fn_entry) {
  try {
    parse(fn_entry);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BucketConfig, ReadsArgByAndBoundsWithUnits) {
  const Config c = parse("{name: pkg.Encode, bucket_by: {arg: b, by: len, bounds: [1KiB, 4KiB, 16KiB]}}");
  ASSERT_TRUE(c.functions[0].bucket_by.has_value());
  const auto& b = *c.functions[0].bucket_by;
  EXPECT_EQ(b.arg, "b");
  EXPECT_EQ(b.by, "len");
  EXPECT_EQ(b.bounds, (std::vector<int64_t>{1024, 4096, 16384}));
  EXPECT_EQ(b.bound_texts, (std::vector<std::string>{"1KiB", "4KiB", "16KiB"}));
  const auto reqs = c.bucket_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].function, "pkg.Encode");
  EXPECT_EQ(reqs[0].origin, "/repo/gate.yaml:4");
}

TEST(BucketConfig, ByDefaultsToLenAndNilTakesNoBounds) {
  EXPECT_EQ(parse("{name: pkg.F, bucket_by: {arg: s, bounds: [16]}}").functions[0].bucket_by->by, "len");
  const auto b = *parse("{name: pkg.F, bucket_by: {arg: p, by: nil}}").functions[0].bucket_by;
  EXPECT_TRUE(b.bounds.empty());
  EXPECT_EQ(parse("{name: pkg.F, bucket_by: {arg: n, by: value, bounds: [-10, 0, 10]}}").functions[0].bucket_by->bounds,
            (std::vector<int64_t>{-10, 0, 10}));
  EXPECT_TRUE(parse("pkg.F").bucket_requests().empty());
}

TEST(BucketConfig, RefusesWhatCannotBeBucketed) {
  std::string e = error_of("{name: pkg.F, bucket_by: {arg: b, bounds: [4KiB, 1KiB]}}");
  EXPECT_NE(e.find("/repo/gate.yaml:4: 'pkg.F.bucket_by.bounds': are not increasing: 1KiB follows 4KiB"), std::string::npos) << e;
  EXPECT_NE(e.find("fix: list the bounds from small to large"), std::string::npos) << e;
  e = error_of("{name: pkg.F, bucket_by: {arg: b, bounds: [16, 16]}}");
  EXPECT_NE(e.find("are not increasing: 16 follows 16"), std::string::npos) << e;
  e = error_of("{name: pkg.F, bucket_by: {arg: b, bounds: [1KB]}}");
  EXPECT_NE(e.find("is not a bound: '1KB'"), std::string::npos) << e;
  EXPECT_NE(e.find("KiB, MiB or GiB"), std::string::npos) << e;
  e = error_of("{name: pkg.F, bucket_by: {arg: b, by: size, bounds: [1]}}");
  EXPECT_NE(e.find("'pkg.F.bucket_by.by': is \"size\""), std::string::npos) << e;
  e = error_of("{name: pkg.F, bucket_by: {arg: b}}");
  EXPECT_NE(e.find("must list 1 to 8 bounds"), std::string::npos) << e;
  e = error_of("{name: pkg.F, bucket_by: {arg: b, bounds: [1, 2, 3, 4, 5, 6, 7, 8, 9]}}");
  EXPECT_NE(e.find("must list 1 to 8 bounds"), std::string::npos) << e;
  e = error_of("{name: pkg.F, bucket_by: {arg: p, by: nil, bounds: [1]}}");
  EXPECT_NE(e.find("is set with by: nil"), std::string::npos) << e;
  e = error_of("{name: pkg.F, bucket_by: {by: len, bounds: [1]}}");
  EXPECT_NE(e.find("'pkg.F.bucket_by.arg': is missing"), std::string::npos) << e;
  e = error_of("{name: pkg.F, bucket_by: {arg: b, bounds: [1], size: 3}}");
  EXPECT_NE(e.find("'size': is not a known key of pkg.F.bucket_by"), std::string::npos) << e;
  e = error_of("{name: 'pkg.*', bucket_by: {arg: b, bounds: [1]}}");
  EXPECT_NE(e.find("is on a glob"), std::string::npos) << e;
}

}  // namespace
}  // namespace gate::runner
