// A shard's partial file (results/partial.*): its JSON round trip, the atomic write read back, and
// the refusals of what is not a partial. No root.
#include "results/partial.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.hpp"

namespace gate {
namespace {

Partial two_pairs() {
  Partial p;
  p.shard = {2, 3};
  p.seed = 7;
  p.shard_seed = 0x1234567890abcdefULL;
  p.runner = "fnv1a64:00000000000000aa";
  p.runner_label = "cpu / kernel";
  p.hostname = "ci-2";
  p.config_hash = "fnv1a64:00000000000000bb";
  p.base_build_id = "base-id";
  p.head_build_id = "head-id";
  p.head_executions_per_unit = 3;
  for (ResultFile* side : {&p.base, &p.head}) {
    side->functions.resize(1);
    side->functions[0].name = "main.f";
    for (int i = 0; i < 2; ++i) {
      RunResult run;
      run.functions.resize(1);
      run.functions[0].name = "main.f";
      run.functions[0].calls = 10 + i;
      run.functions[0].histogram.add(1000 * (i + 1), 10 + i);
      side->runs.push_back(run);
    }
  }
  return p;
}

void expect_same(const Partial& q, const Partial& p) {
  EXPECT_EQ(q.shard.index, 2);
  EXPECT_EQ(q.shard.count, 3);
  EXPECT_EQ(q.seed, p.seed);
  EXPECT_EQ(q.shard_seed, p.shard_seed);
  EXPECT_EQ(q.runner, p.runner);
  EXPECT_EQ(q.runner_label, p.runner_label);
  EXPECT_EQ(q.hostname, p.hostname);
  EXPECT_EQ(q.config_hash, p.config_hash);
  EXPECT_EQ(q.head_build_id, "head-id");
  EXPECT_EQ(q.head_executions_per_unit, 3);
  ASSERT_EQ(q.pairs(), 2);
  EXPECT_EQ(q.head.runs[1].functions[0].histogram.count(), p.head.runs[1].functions[0].histogram.count());
}

TEST(Partial, RoundTripsThroughJson) {
  const Partial p = two_pairs();
  expect_same(partial_from_json_text(partial_to_json_text(p), "p.json"), p);
  EXPECT_THROW(partial_from_json_text("{\"runs\": []}", "r.json"), Error) << "a result file is not a partial";
  EXPECT_THROW(partial_from_json_text("not json", "x.json"), Error);
}

TEST(Partial, SavedAtomicallyAndLoaded) {
  const auto dir = std::filesystem::temp_directory_path() / ("gate-partial-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "shard-2.json").string();
  const Partial p = two_pairs();
  save_partial(path, p);
  expect_same(load_partial(path), p);
  try {
    load_partial((dir / "missing.json").string());
    FAIL() << "a missing partial must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("cannot be read"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gate
