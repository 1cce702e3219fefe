// gate/baselines: default paths, the one usability check, loading, overwrite protection, and
// reading a baseline from a commit of a temporary git repository. No root (git is run).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "baselines/git_ref.hpp"
#include "baselines/baseline_file.hpp"
#include "common/error.hpp"

namespace gate::baselines {
namespace {

namespace fs = std::filesystem;

ResultFile result(std::vector<std::string> names, int runs = 2) {
  ResultFile r;
  r.context.started_at = "2026-01-02T03:04:05Z";
  r.context.binary_path = "/bin/shop";
  for (const auto& n : names) r.functions.push_back({.name = n});
  for (int i = 1; i <= runs; ++i) {
    RunResult run;
    run.index = i;
    for (const auto& n : names) run.functions.push_back({.name = n});
    r.runs.push_back(run);
  }
  return r;
}

// The error's text, or "" when `f` does not throw gate::Error.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

struct Dir {
  fs::path path = fs::temp_directory_path() / ("gate-baselines-" + std::to_string(getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
};

TEST(Baselines, DefaultPathIsTheRepositorysTopLevelBaselinesFolder) {
  Dir d;
  const fs::path repo = fs::weakly_canonical(fs::path(d.path)) / "repo";
  fs::create_directories(repo / ".git");
  fs::create_directories(repo / "services" / "shop");
  fs::create_directories(fs::path(d.path) / "loose");
  const fs::path loose = fs::weakly_canonical(fs::path(d.path) / "loose");
  const fs::path before = fs::current_path();
  EXPECT_EQ(repository_root((repo / "services" / "shop").string()), repo.string());
  EXPECT_EQ(repository_root(loose.string()), "");
  // From the repository's root, a config deep inside it: baselines/ at the root, relative.
  fs::current_path(repo);
  EXPECT_EQ(default_path("shop", "", (repo / "services" / "shop").string()), "baselines/shop.json");
  // From the config's folder: the same file, absolute (it is not below the current directory).
  fs::current_path(repo / "services" / "shop");
  EXPECT_EQ(default_path("shop", "", "."), (repo / "baselines" / "shop.json").string());
  // Outside any repository: beside the config.
  fs::current_path(loose);
  EXPECT_EQ(default_path("shop", "", loose.string()), "baselines/shop.json");
  fs::current_path(before);
  // The config's own `baseline:` key wins.
  EXPECT_EQ(default_path("shop", "/x/main.json", repo.string()), "/x/main.json");
}

TEST(Baselines, PartialOrEmptyResultsAreNeverBaselines) {
  ResultFile r = result({"main.f"});
  EXPECT_EQ(error_of([&] { require_usable(r, "b.json", "record it"); }), "");
  r.partial = true;
  r.partial_reason = "workload exited with status 2";
  const std::string partial = error_of([&] { require_usable(r, "b.json", "record it"); });
  EXPECT_TRUE(has(partial, "baseline b.json: is a partial result (workload exited with status 2)")) << partial;
  EXPECT_TRUE(has(partial, "fix: a failed or interrupted run is never a baseline: record it")) << partial;
  const ResultFile empty = result({"main.f"}, 0);
  EXPECT_TRUE(has(error_of([&] { require_usable(empty, "b.json", "record it"); }), "holds no runs"));
}

TEST(Baselines, LoadSaysHowToRecordAMissingOne) {
  Dir d;
  const std::string path = (d.path / "none.json").string();
  const std::string e = error_of([&] { load(path, "gate.yaml"); });
  EXPECT_TRUE(has(e, "does not exist")) << e;
  EXPECT_TRUE(has(e, "gate record -c gate.yaml --baseline " + path)) << e;
  const std::string ok = (d.path / "ok.json").string();
  save_result_file(ok, result({"main.f"}, 3));
  EXPECT_EQ(load(ok, "").runs.size(), 3u);
  ResultFile partial = result({"main.f"});
  partial.partial = true;
  save_result_file((d.path / "partial.json").string(), partial);
  EXPECT_TRUE(has(error_of([&] { load((d.path / "partial.json").string(), ""); }), "partial result"));
}

TEST(Baselines, CommonFunctionsAreRequired) {
  const ResultFile base = result({"main.a", "main.b"}), head = result({"main.c"});
  const std::string e = error_of([&] { require_common_functions(base, head, "b.json"); });
  EXPECT_TRUE(has(e, "shares no function with the measured result (baseline: main.a, main.b; now: main.c)")) << e;
  EXPECT_EQ(error_of([&] { require_common_functions(base, result({"main.b", "main.c"}), "b.json"); }), "");
}

// Wall times and times with preemption excluded differ by the load: never compared with each
// other, and the error says which side is which and how to make them match.
TEST(Baselines, TimeBasesMustMatch) {
  EXPECT_EQ(error_of([&] { require_same_time_basis(false, false, "b.json"); }), "");
  EXPECT_EQ(error_of([&] { require_same_time_basis(true, true, "b.json"); }), "");
  const std::string e = error_of([&] { require_same_time_basis(false, true, "b.json"); });
  EXPECT_TRUE(has(e, "baseline b.json")) << e;
  EXPECT_TRUE(has(e, "as wall time (preemption in), the head with preemption excluded")) << e;
  EXPECT_TRUE(has(e, "re-record the baseline with it (gate record --force --exclude-preemption)")) << e;
  const std::string f = error_of([&] { require_same_time_basis(true, false, "b.json"); });
  EXPECT_TRUE(has(f, "drop --no-exclude-preemption / exclude_preemption: false")) << f;
}

TEST(Baselines, OverwriteNeedsForce) {
  Dir d;
  const std::string path = (d.path / "b.json").string();
  EXPECT_FALSE(check_overwrite(path, false)) << "nothing to replace";
  save_result_file(path, result({"main.f"}));
  const std::string e = error_of([&] { check_overwrite(path, false); });
  EXPECT_TRUE(has(e, "already exists (recorded 2026-01-02T03:04:05Z)")) << e;
  EXPECT_TRUE(check_overwrite(path, true));
  std::ofstream(path) << "not json";
  EXPECT_TRUE(has(error_of([&] { check_overwrite(path, false); }), "(unreadable)"));
}

// A repository with b.json committed on main, then changed in the working tree.
struct Repo : Dir {
  void git(const std::vector<std::string>& args) {
    std::vector<std::string> a = {"-c", "user.name=t", "-c", "user.email=t@example.com"};
    a.insert(a.end(), args.begin(), args.end());
    const auto r = run_git(a, path.string());
    ASSERT_EQ(r.status, 0) << r.err;
  }
};

TEST(Baselines, ReadFromACommit) {
  Repo repo;
  repo.git({"init", "-q", "-b", "main"});
  const std::string path = (repo.path / "b.json").string();
  save_result_file(path, result({"main.f"}, 4));
  repo.git({"add", "b.json"});
  repo.git({"commit", "-q", "-m", "baseline"});
  std::vector<std::string> notices;
  EXPECT_EQ(load_at_ref("main", path, "", notices).runs.size(), 4u);
  EXPECT_TRUE(notices.empty());

  save_result_file(path, result({"main.f"}, 1));  // the branch edits its baseline
  EXPECT_EQ(load_at_ref("main", path, "", notices).runs.size(), 4u) << "the commit's, not the working tree's";
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_TRUE(has(notices[0], "this branch changes the baseline b.json")) << notices[0];

  const FileAtRef missing = read_at_ref("main", (repo.path / "other.json").string());
  EXPECT_FALSE(missing.exists);
  EXPECT_EQ(missing.repo_path, "other.json");
  EXPECT_TRUE(has(error_of([&] { load_at_ref("main", (repo.path / "other.json").string(), "", notices); }),
                  "is not in main"));
  EXPECT_TRUE(has(error_of([&] { read_at_ref("no-such-ref", path); }), "does not name a commit"));
  EXPECT_TRUE(has(error_of([&] { read_at_ref("--output=x", path); }), "is not a git revision"));
}

}  // namespace
}  // namespace gate::baselines
