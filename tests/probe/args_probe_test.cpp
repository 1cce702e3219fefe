// Latency by argument in the kernel (root): tests/go/args calls its functions with known argument
// values (strings, slices, ints, pointers, a receiver, a generic, a map, a chan), and every bucket
// series must hold exactly the calls whose argument falls in it, summing to the function's calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "probe_fixture.hpp"
#include "results/result.hpp"
#include "runner/config.hpp"
#include "runner/measure.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

// One run of `args counts` with every function bucketed; calls by series name.
std::map<std::string, uint64_t> bucket_calls(const std::string& sum_name) {
  const auto tc = probe_toolchain();
  const std::string bin = build_go({"tests/go/args", ".", tc, {}, {}});
  const fs::path dir = fs::temp_directory_path() / ("gate-args-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string yaml = "binary: " + bin + "\nworkload: " + bin + " counts\nruns: 1\nfunctions:\n" +
      "  - {name: main.Encode, bucket_by: {arg: b, by: len, bounds: [1KiB, 4KiB, 16KiB]}}\n"
      "  - {name: main.Lookup, bucket_by: {arg: key, by: len, bounds: [16, 64]}}\n"
      "  - {name: main.Count, bucket_by: {arg: n, by: value, bounds: [0, 10, 100, 1000]}}\n"
      "  - {name: main.Small, bucket_by: {arg: a, by: value, bounds: [0]}}\n"
      "  - {name: main.Describe, bucket_by: {arg: p, by: nil}}\n"
      "  - {name: 'main.(*Store).Get', bucket_by: {arg: key, by: len, bounds: [16]}}\n"
      "  - {name: 'main.(*Store).GetNilSafe', bucket_by: {arg: s, by: nil}}\n"
      "  - {name: '" + sum_name + "', bucket_by: {arg: xs, by: len, bounds: [100]}}\n"
      "  - {name: main.MapLen, bucket_by: {arg: m, by: len, bounds: [1, 10]}}\n"
      "  - {name: main.ChanLen, bucket_by: {arg: c, by: len, bounds: [1]}}\n";
  runner::Config cfg = runner::parse_config(yaml, (dir / "gate.yaml").string());
  runner::MeasureOptions mo;
  mo.skip_build = true;
  runner::Measurement m = runner::measure(cfg, mo, nullptr);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (m.failure) throw *m.failure;
  std::map<std::string, uint64_t> out;
  for (const auto& f : m.result.runs.at(0).functions) out[f.name] = f.calls;
  return out;
}

TEST(ArgBuckets, KnownArgumentsLandInTheirBucketsExactly) {
  GATE_REQUIRE_ROOT();
  const std::string sum = probe_toolchain().minor() < 21 ? "main.Sum[go.shape.int_0]" : "main.Sum[go.shape.int]";
  const auto c = bucket_calls(sum);
  const std::map<std::string, uint64_t> want = {
      {"main.Encode", 100},  // slices by len: 10 x 100 B, 20 x 2000, 30 x 8000, 40 x 20000
      {"main.Encode{len(b)<1KiB}", 10},
      {"main.Encode{1KiB<=len(b)<4KiB}", 20},
      {"main.Encode{4KiB<=len(b)<16KiB}", 30},
      {"main.Encode{len(b)>=16KiB}", 40},
      {"main.Lookup{len(key)<16}", 7},  // strings by len: 7 x 5, 11 x 20, 13 x 100
      {"main.Lookup{16<=len(key)<64}", 11},
      {"main.Lookup{len(key)>=64}", 13},
      {"main.Count{n<0}", 3},  // signed ints: -5, 5, 50, 500, 5000
      {"main.Count{0<=n<10}", 4},
      {"main.Count{10<=n<100}", 6},
      {"main.Count{100<=n<1000}", 8},
      {"main.Count{n>=1000}", 9},
      {"main.Small{a<0}", 5},  // int8 -3 sign-extended from one byte
      {"main.Small{a>=0}", 6},
      {"main.Describe{p==nil}", 4},  // pointers by nil-ness
      {"main.Describe{p!=nil}", 6},
      {"main.(*Store).Get{len(key)<16}", 3},  // a method: the receiver shifts key to RBX, RCX
      {"main.(*Store).Get{len(key)>=16}", 5},
      {"main.(*Store).GetNilSafe{s==nil}", 2},  // the receiver itself
      {"main.(*Store).GetNilSafe{s!=nil}", 0},
      {sum + "{len(xs)<100}", 9},  // a generic: the dictionary takes RAX
      {sum + "{len(xs)>=100}", 12},
      {"main.MapLen{len(m)<1}", 6},  // 2 empty, 4 nil
      {"main.MapLen{1<=len(m)<10}", 0},
      {"main.MapLen{len(m)>=10}", 3},
      {"main.ChanLen{len(c)<1}", 2},
      {"main.ChanLen{len(c)>=1}", 3},
  };
  for (const auto& [name, n] : want) {
    ASSERT_TRUE(c.count(name)) << "no series " << name;
    EXPECT_EQ(c.at(name), n) << name;
  }
  // Every call is in exactly one bucket: the series of a function sum to its own calls.
  for (const auto& [name, n] : c) {
    if (name.find('{') != std::string::npos) continue;
    uint64_t in_buckets = 0;
    for (const auto& [series, k] : c)
      if (series.size() > name.size() && series.compare(0, name.size() + 1, name + "{") == 0) in_buckets += k;
    EXPECT_EQ(in_buckets, n) << name;
  }
}

}  // namespace
}  // namespace gate::testing
