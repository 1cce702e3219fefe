// The pprof writer: the wire bytes of a known message, and Go's own `go tool pprof -raw` reading a
// written file back (sample types, period, counts, inlined frames as Line chains, names, lines).
#include "profile/pprof.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.hpp"
#include "profile/profile_test_support.hpp"

namespace gate::profile {
namespace {

Profile two_stacks() {
  Profile p;
  p.hz = 199;
  // Location 0: mix inlined into burn30; location 1: main.main calling it.
  p.locations.push_back({0x401010, {{"main.mix", "/src/main.go", 31, 29, true}, {"main.burn30", "/src/main.go", 41, 40, false}}});
  p.locations.push_back({0x402000, {{"main.main", "/src/main.go", 90, 70, false}}});
  p.locations.push_back({0, {{kGateProbeFrame, "", 0, 0, false}}});
  p.samples.push_back({{0, 1}, 7});
  p.samples.push_back({{2, 0, 1}, 2});
  return p;
}

TEST(Pprof, SampleTypesComeFirstInWireFormat) {
  const std::string b = encode_pprof(two_stacks(), {"/bin/x", "", 0, 0});
  // field 1 (sample_type), 4 bytes: type = string 1 ("samples"), unit = string 2 ("count")
  ASSERT_GE(b.size(), 6u);
  EXPECT_EQ(b.substr(0, 6), std::string("\x0a\x04\x08\x01\x10\x02", 6));
}

TEST(Pprof, GzipRoundTripsThroughZcat) {
  const std::string text = "gate pprof gzip check";
  const auto dir = std::filesystem::temp_directory_path() / ("gate_gzip_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "x.gz").string();
  {
    std::string z = gzip(text);
    FILE* f = fopen(file.c_str(), "wb");
    fwrite(z.data(), 1, z.size(), f);
    fclose(f);
  }
  EXPECT_EQ(gate::testing::run_capture("zcat '" + file + "'"), text);
  std::filesystem::remove_all(dir);
}

TEST(Pprof, GoToolPprofReadsItRaw) {
  const auto dir = std::filesystem::temp_directory_path() / ("gate_pprof_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "profile.pb.gz").string();
  write_pprof(file, two_stacks(), {"/bin/x", "abc123", 1'700'000'000'000'000'000, 2'000'000'000});
  const std::string go = gate::testing::default_go().go;
  const std::string raw = gate::testing::run_capture(go + " tool pprof -raw '" + file + "' 2>&1");
  EXPECT_NE(raw.find("PeriodType: cpu nanoseconds"), std::string::npos) << raw;
  EXPECT_NE(raw.find("Period: 5025125"), std::string::npos) << raw;
  EXPECT_NE(raw.find("samples/count cpu/nanoseconds"), std::string::npos) << raw;
  EXPECT_NE(raw.find("7   35175875: 1 2"), std::string::npos) << raw;  // 7 x 5025125 ns
  EXPECT_NE(raw.find("2   10050250: 3 1 2"), std::string::npos) << raw;
  EXPECT_NE(raw.find("main.mix /src/main.go:31"), std::string::npos) << raw;
  EXPECT_NE(raw.find("main.burn30 /src/main.go:41"), std::string::npos) << raw;
  EXPECT_NE(raw.find("[gate probe]"), std::string::npos) << raw;
  // -top sees the inlined frame as a function of its own, and pprof's totals are ours.
  const std::string top = gate::testing::run_capture(go + " tool pprof -top -sample_index=samples '" + file + "' 2>&1");
  EXPECT_NE(top.find("main.mix"), std::string::npos) << top;
  EXPECT_NE(top.find("of 9 total"), std::string::npos) << top;
  std::filesystem::remove_all(dir);
}

// gate check reads the baseline's profile back (gate record --profile wrote it): every frame,
// count, the rate and the [gate probe] accounting survive the round trip, through gzip.
TEST(Pprof, ReadsBackWhatItWrote) {
  const Profile p = two_stacks();
  const Profile back = decode_pprof(gunzip(gzip(encode_pprof(p, {"/bin/x", "abc", 5, 6}))));
  EXPECT_EQ(back.hz, 199);
  ASSERT_EQ(back.samples.size(), p.samples.size());
  EXPECT_EQ(back.total, 9u);
  EXPECT_EQ(back.in_gate_probe, 2u);
  for (size_t i = 0; i < p.samples.size(); ++i) {
    EXPECT_EQ(back.samples[i].count, p.samples[i].count);
    ASSERT_EQ(back.samples[i].locations.size(), p.samples[i].locations.size());
    for (size_t k = 0; k < p.samples[i].locations.size(); ++k) {
      const auto& want = p.locations[p.samples[i].locations[k]];
      const auto& got = back.locations[back.samples[i].locations[k]];
      EXPECT_EQ(got.address, want.address);
      ASSERT_EQ(got.frames.size(), want.frames.size());
      for (size_t f = 0; f < want.frames.size(); ++f) {
        EXPECT_EQ(got.frames[f].function, want.frames[f].function);
        EXPECT_EQ(got.frames[f].file, want.frames[f].file);
        EXPECT_EQ(got.frames[f].line, want.frames[f].line);
        EXPECT_EQ(got.frames[f].inlined, want.frames[f].inlined);
      }
    }
  }
  EXPECT_THROW(decode_pprof(std::string("\x0a\x09\x08", 3)), Error);
  EXPECT_THROW(gunzip("not gzip"), Error);
}

}  // namespace
}  // namespace gate::profile
