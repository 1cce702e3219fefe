// The result format: JSON round trip keeps every number; bad files give clear errors; writes are
// atomic (a failed write leaves the old file as it was).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.hpp"
#include "results/result.hpp"

namespace gate {
namespace {

namespace fs = std::filesystem;

ResultFile sample() {
  ResultFile r;
  r.context.binary_path = "/bin/shop";
  r.context.build_id = "abc";
  r.context.go_version = "go1.21.13";
  r.context.kernel = "6.18";
  r.context.attach_mode = "uprobe_multi";
  FunctionInfo f;
  f.id = 0;
  f.name = "example.com/shop.(*Cart).Checkout";
  f.entry_placement = "stack-check-jump";
  f.entry_instruction = "jbe 0x4a1234";
  f.entry_cost_class = "emulated";
  f.return_addresses = {0x4a1300, 0x4a1380};
  r.functions.push_back(f);
  for (int i = 1; i <= 3; ++i) {
    RunResult run;
    run.index = i;
    FunctionRun fr;
    fr.name = f.name;
    for (uint64_t v = 1000; v < 2000; v += 7 * i) {
      fr.histogram.add(v);
      fr.sum_ns += v;
    }
    fr.calls = fr.histogram.count();
    fr.min_ns = 1000;
    fr.max_ns = 1999;
    fr.unmatched_entries = i;
    run.functions.push_back(fr);
    r.runs.push_back(run);
  }
  return r;
}

TEST(ResultIo, RoundTripKeepsEverything) {
  const ResultFile a = sample();
  const ResultFile b = result_from_json_text(result_to_json_text(a), "mem");
  ASSERT_EQ(b.runs.size(), 3u);
  EXPECT_EQ(b.context.go_version, "go1.21.13");
  EXPECT_EQ(b.functions[0].return_addresses, a.functions[0].return_addresses);
  EXPECT_EQ(b.functions[0].entry_instruction, "jbe 0x4a1234");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b.runs[i].functions[0].histogram, a.runs[i].functions[0].histogram);
    EXPECT_EQ(b.runs[i].functions[0].sum_ns, a.runs[i].functions[0].sum_ns);
    EXPECT_EQ(b.runs[i].functions[0].unmatched_entries, a.runs[i].functions[0].unmatched_entries);
  }
}

TEST(ResultIo, QuantilesStayWithinMinMax) {
  const auto& f = sample().runs[0].functions[0];
  EXPECT_LE(f.quantile_ns(1.0), double(f.max_ns));
  EXPECT_GE(f.quantile_ns(0.0), double(f.min_ns));
}

TEST(ResultIo, InconsistentHistogramIsRejected) {
  auto j = nlohmann::json::parse(result_to_json_text(sample()));
  j["runs"][1]["functions"][0]["calls"] = 7;  // no longer the histogram's total
  try {
    result_from_json_text(j.dump(), "edited.json");
    FAIL() << "accepted a histogram that disagrees with its call count";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("edited.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("histogram holds"), std::string::npos) << e.what();
  }
}

TEST(ResultIo, AtomicWriteReplacesWholeOrNotAtAll) {
  const fs::path dir = fs::temp_directory_path() / "gate-atomic-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "baseline.json").string();
  save_result_file(path, sample());
  const auto before = load_result_file(path);
  EXPECT_EQ(before.runs.size(), 3u);
  // A directory we cannot write into: the write fails, the old file stays, no temp file is left.
  if (geteuid() != 0) {
    chmod(dir.c_str(), 0500);
    EXPECT_THROW(save_result_file(path, ResultFile{}), Error);
    chmod(dir.c_str(), 0700);
  }
  // A target that is a directory: rename fails; nothing is left behind.
  const std::string as_dir = (dir / "isdir").string();
  fs::create_directories(as_dir + "/x");
  EXPECT_THROW(write_file_atomically(as_dir, "data"), Error);
  EXPECT_EQ(load_result_file(path).runs.size(), 3u);
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << "temp file left: " << e.path();
  }
}

}  // namespace
}  // namespace gate
