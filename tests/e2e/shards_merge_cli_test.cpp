// gate merge's flags on synthetic partials (no root, no kernel): --baseline-ref does for a merge what
// it does for gate ab (a notice when the branch changed the config's thresholds against REF),
// --thresholds-ref judges with REF's thresholds, and a REF that names no commit is refused before any work.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

#include "runner/config.hpp"
#include "support/gate_cli.hpp"
#include "sharding/shards_synthetic.hpp"

namespace gate {
namespace {

namespace fs = std::filesystem;

const char* kConfig = R"(name: synthetic
binary: bin/x
workload: bin/x
functions:
  - main.f0*
threshold: 10%
)";

struct Repo {
  fs::path dir;
  std::vector<std::string> partials;
  std::string cfg;
};

// A git repository whose origin/main holds gate.yaml at 10%; the working tree's at 25%; three
// partials measured with the working tree's config (its hash).
Repo make_repo() {
  Repo r;
  r.dir = fs::temp_directory_path() / ("gate-shards-cli-" + std::to_string(getpid()));
  fs::remove_all(r.dir);
  fs::create_directories(r.dir);
  r.cfg = (r.dir / "gate.yaml").string();
  std::ofstream(r.cfg) << kConfig;
  const std::map<std::string, std::string> env = {{"GIT_AUTHOR_NAME", "t"}, {"GIT_AUTHOR_EMAIL", "t@example.com"},
                                                  {"GIT_COMMITTER_NAME", "t"}, {"GIT_COMMITTER_EMAIL", "t@example.com"}};
  for (const auto& cmd : {"git init -q", "git add gate.yaml", "git commit -qm config",
                          "git update-ref refs/remotes/origin/main HEAD"}) {
    const auto out = testing::run_program({"sh", "-c", cmd}, r.dir.string(), env);
    EXPECT_EQ(out.code, 0) << cmd << ": " << out.err;
  }
  std::string branch = kConfig;
  branch.replace(branch.find("threshold: 10%"), 14, "threshold: 25%");
  std::ofstream(r.cfg) << branch;
  const std::string hash = runner::load_config(r.cfg).hash;
  for (int k = 1; k <= 3; ++k) {
    r.partials.push_back((r.dir / ("shard" + std::to_string(k) + ".json")).string());
    save_partial(r.partials.back(), sharding::testing::synthetic_partial({.index = k, .config_hash = hash}));
  }
  return r;
}

std::vector<std::string> merge_args(const Repo& r, std::vector<std::string> extra) {
  std::vector<std::string> args = {"merge", "-c", r.cfg};
  args.insert(args.end(), r.partials.begin(), r.partials.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(ShardsMergeCli, BaselineRefReportsTheBranchsThresholdChange) {
  const Repo r = make_repo();
  const auto with = testing::run_gate(merge_args(r, {"--baseline-ref", "origin/main"}), {.cwd = r.dir.string()});
  EXPECT_EQ(with.code, 0) << with.out << with.err;
  EXPECT_NE(with.out.find("this branch changes the thresholds in gate.yaml (compared with origin/main)"),
            std::string::npos)
      << with.out;
  const auto without = testing::run_gate(merge_args(r, {}), {.cwd = r.dir.string()});
  EXPECT_EQ(without.code, 0) << without.err;
  EXPECT_EQ(without.out.find("this branch changes the thresholds"), std::string::npos) << without.out;
  fs::remove_all(r.dir);
}

// Issue 56: --thresholds-ref judges with the base's verdict settings (origin/main's 10%, not the
// branch's 25%), and says the branch changed them. Without it the branch's own 25% judges.
TEST(ShardsMergeCli, ThresholdsRefJudgesWithTheBasesThresholds) {
  const Repo r = make_repo();
  const auto with = testing::run_gate(merge_args(r, {"--thresholds-ref", "origin/main"}), {.cwd = r.dir.string()});
  EXPECT_NE(with.out.find("thresholds: +10% / -10%"), std::string::npos) << with.out << with.err;
  EXPECT_NE(with.out.find("origin/main"), std::string::npos) << "the notice names the ref: " << with.out;
  const auto without = testing::run_gate(merge_args(r, {}), {.cwd = r.dir.string()});
  EXPECT_NE(without.out.find("thresholds: +25% / -25%"), std::string::npos) << without.out << without.err;
  EXPECT_EQ(without.out.find("origin/main"), std::string::npos) << without.out;
  fs::remove_all(r.dir);
}

// A --thresholds-ref the clone lacks (a shallow CI checkout): the branch's thresholds judge, and the
// notice names the ref, the cause and the fix.
TEST(ShardsMergeCli, ThresholdsRefTheCloneLacksSaysHowToFetchIt) {
  const Repo r = make_repo();
  const auto out = testing::run_gate(merge_args(r, {"--thresholds-ref", "no-such-ref"}), {.cwd = r.dir.string()});
  EXPECT_NE(out.out.find("thresholds: +25% / -25%"), std::string::npos) << out.out << out.err;
  EXPECT_NE(out.out.find("could not be read from no-such-ref"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("fetch-depth 0"), std::string::npos) << "the notice gives the fix: " << out.out;
  fs::remove_all(r.dir);
}

TEST(ShardsMergeCli, BaselineRefThatNamesNoCommitIsRefused) {
  const Repo r = make_repo();
  const auto out = testing::run_gate(merge_args(r, {"--baseline-ref", "no-such-ref"}), {.cwd = r.dir.string()});
  EXPECT_EQ(out.code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("--baseline-ref no-such-ref"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("fix:"), std::string::npos) << out.err;
  fs::remove_all(r.dir);
}

}  // namespace
}  // namespace gate
