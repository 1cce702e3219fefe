// The PostgreSQL history on a real server (a private cluster, history/pg_cluster.hpp): the same
// answers as SQLite for the same uploads, retried uploads adding nothing, two writer processes at
// once (also racing to create the schema), and a foreign gate_meta refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/error.hpp"
#include "history/pg_cluster.hpp"
#include "history/store.hpp"
#include "history/synthetic.hpp"
#include "support/gate_cli.hpp"

using namespace gate;
using gate::testing::run_gate;
namespace fs = std::filesystem;

namespace {

gate::testing::PgCluster* cluster = nullptr;

// The cluster starts with the first test and stops after the last (also when a test failed).
class ClusterEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    delete cluster;
    cluster = nullptr;
  }
};
[[maybe_unused]] auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new ClusterEnvironment);

class PgTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cluster) cluster = new gate::testing::PgCluster();
    if (!cluster->missing().empty()) {
      std::fprintf(stderr, "\n*** SKIPPED LOUDLY: %s ***\n\n", cluster->missing().c_str());
      GTEST_SKIP() << cluster->missing();
    }
    char t[] = "/tmp/gate-history-pg-XXXXXX";
    dir = mkdtemp(t);
  }
  void TearDown() override {
    if (!dir.empty()) fs::remove_all(dir);
  }
  std::string dir;
};

const std::string kFn = "example.com/shop/pricing.Apply";
const std::string kOther = "example.com/shop.(*Store).Get";

// 16 commits, kFn 1.3x slower from the 9th; one upload repeated. Returns the files in order.
std::vector<std::string> sixteen_commits(const std::string& dir) {
  std::vector<std::string> files;
  for (int i = 1; i <= 16; ++i) {
    gate::testing::SyntheticRun r;
    r.p50_ns = {{kFn, i >= 9 ? 1.3e6 : 1e6}, {kOther, 2000}};
    r.seed = i;
    r.noise = 0.04;
    files.push_back(dir + "/c" + std::to_string(i) + ".json");
    save_result_file(files.back(), gate::testing::synthetic_result(r));
  }
  return files;
}

void add_all(const std::vector<std::string>& files, const std::string& db) {
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string c = "c" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1);
    const auto o = run_gate({"history", "add", files[i], "--commit", c, "--time", std::to_string(1795700000 + 60 * i),
                             "--db", db, "-q"});
    ASSERT_EQ(o.code, 0) << o.err;
    if (i == 4) {  // retried
      ASSERT_EQ(run_gate({"history", "add", files[i], "--commit", c, "--db", db, "-q"}).code, 0);
    }
  }
}

}  // namespace

TEST_F(PgTest, SameAnswersAsSqlite) {
  const auto files = sixteen_commits(dir);
  const std::string pg = cluster->new_database("same_answers");
  const std::string lite = "sqlite:" + dir + "/h.db";
  add_all(files, pg);
  add_all(files, lite);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"history", "changes", "--format", "json"},
           {"history", "show", kFn, "--format", "json"},
           {"history", "check", "--since", "c01", "--budget", "10%", "--format", "json"}}) {
    auto a = args, b = args;
    a.insert(a.end(), {"--db", pg});
    b.insert(b.end(), {"--db", lite});
    const auto from_pg = run_gate(a), from_lite = run_gate(b);
    EXPECT_EQ(from_pg.code, from_lite.code) << args[1];
    ASSERT_FALSE(from_pg.out.empty()) << from_pg.err;
    EXPECT_EQ(nlohmann::json::parse(from_pg.out), nlohmann::json::parse(from_lite.out)) << args[1];
  }
  const auto j = nlohmann::json::parse(run_gate({"history", "changes", "--format", "json", "--db", pg}).out);
  bool named = false;
  for (const auto& c : j["changes"])
    if (c["function"] == kFn && c["quantile"] == "p50") {
      EXPECT_EQ(c["commit"], "c09");
      named = true;
    }
  EXPECT_TRUE(named) << j.dump(1);
  // The retried upload added nothing: 16 results.
  history::Store s = history::Store::open(pg, false);
  EXPECT_EQ(s.result_count(), 16);
}

TEST_F(PgTest, TwoWriterProcessesAtOnceLoseNothing) {
  const std::string pg = cluster->new_database("two_writers");  // empty: both race to create the schema
  const int per_writer = 10;
  std::vector<std::string> files;
  for (int i = 0; i < 2 * per_writer; ++i) {
    gate::testing::SyntheticRun r;
    r.p50_ns = {{kFn, 1e6}};
    r.seed = 50 + i;
    files.push_back(dir + "/w" + std::to_string(i) + ".json");
    save_result_file(files.back(), gate::testing::synthetic_result(r));
  }
  std::atomic<int> failed{0};
  auto writer = [&](int w) {
    for (int i = 0; i < per_writer; ++i) {
      const int k = w * per_writer + i;
      const auto o = run_gate({"history", "add", files[k], "--commit", "w" + std::to_string(k), "--db", pg, "-q"});
      if (o.code != 0) {
        ++failed;
        std::fprintf(stderr, "%s\n", o.err.c_str());
      }
    }
  };
  std::thread a(writer, 0), b(writer, 1);
  a.join();
  b.join();
  EXPECT_EQ(failed, 0);
  history::Store s = history::Store::open(pg, false);
  EXPECT_EQ(s.result_count(), 2 * per_writer);
  EXPECT_EQ(s.runs_of(kFn).size(), 2u * per_writer * 5);
}

TEST_F(PgTest, ForeignOrMissingHistoryIsNamed) {
  const std::string pg = cluster->new_database("foreign_db");
  auto o = run_gate({"history", "changes", "--db", pg});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("holds no gate history"), std::string::npos) << o.err;
  {
    auto db = history::open_postgresql(pg, "test");
    db->exec("CREATE TABLE gate_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db->exec("INSERT INTO gate_meta VALUES ('schema', 'not.gate')");
  }
  o = run_gate({"history", "changes", "--db", pg});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("not.gate"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("fix:"), std::string::npos) << o.err;
  // A server that is not there.
  o = run_gate({"history", "changes", "--db", "postgresql:///x?host=" + dir + "/nowhere&user=postgres"});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("cannot connect"), std::string::npos) << o.err;
}
