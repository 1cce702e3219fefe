// gate history through the real CLI, no root: the drift budget on a 1% creep per commit, two
// writer processes at once, refused input that writes nothing, and --help with examples.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/files.hpp"
#include "history/synthetic.hpp"
#include "support/gate_cli.hpp"

using namespace gate;
using gate::testing::run_gate;
namespace fs = std::filesystem;

using gate::testing::TempDir;

namespace {

const std::string kCreeping = "example.com/shop.(*Cart).Checkout";
const std::string kSteady = "example.com/shop.(*Store).Get";

// A result file with the two functions at these levels.
std::string write_result(const std::string& dir, const std::string& name, double creeping, double steady,
                         uint64_t seed) {
  gate::testing::SyntheticRun r;
  r.p50_ns = {{kCreeping, creeping}, {kSteady, steady}};
  r.seed = seed;
  r.noise = 0.005;
  const std::string path = dir + "/" + name + ".json";
  save_result_file(path, gate::testing::synthetic_result(r));
  return path;
}

std::string sha(int i) {  // c01 -> a 40-character SHA-like name
  char b[41];
  snprintf(b, sizeof b, "c%02d%037d", i, i);
  return b;
}

}  // namespace

TEST(HistoryCli, OnePercentCreepOverFifteenCommitsTripsTheBudget) {
  TempDir d;
  const std::string db = "sqlite:" + d.path + "/h.db";
  for (int i = 1; i <= 15; ++i) {
    const double level = 700e3 * std::pow(1.01, i - 1);  // each commit 1% slower than its parent
    const auto path = write_result(d.path, "c" + std::to_string(i), level, 1000, i);
    const auto o = run_gate({"history", "add", path, "--commit", sha(i), "--time", std::to_string(1795700000 + 60 * i),
                             "--db", db, "-q"});
    ASSERT_EQ(o.code, 0) << o.err;
  }
  // Every step passes its own 10% band: gate compare of commit 6 against commit 5 says so (exit 0).
  const auto step = run_gate({"compare", d.path + "/c5.json", d.path + "/c6.json"});
  EXPECT_EQ(step.code, 0) << step.out << step.err;
  // 1.01^14 = 1.149 since the first commit: over a 10% budget.
  const auto over = run_gate({"history", "check", "--since", sha(1).substr(0, 8), "--budget", "10%", "--db", db});
  EXPECT_EQ(over.code, 1) << over.out << over.err;
  EXPECT_NE(over.out.find("OVER  " + kCreeping), std::string::npos) << over.out;
  EXPECT_NE(over.out.find("ok    " + kSteady), std::string::npos) << over.out;
  const auto json = run_gate({"history", "check", "--since", sha(1), "--budget", "10%", "--db", db, "--format", "json"});
  const auto j = nlohmann::json::parse(json.out);
  for (const auto& dr : j["drifts"])
    if (dr["function"] == kCreeping) {
      EXPECT_NEAR(dr["ratio"].get<double>(), std::pow(1.01, 14), 0.03) << json.out;
    }
  // Within a 20% budget, and since a later commit (1.01^7 = 1.07), it passes.
  EXPECT_EQ(run_gate({"history", "check", "--since", sha(1), "--budget", "20%", "--db", db}).code, 0);
  EXPECT_EQ(run_gate({"history", "check", "--since", sha(8), "--budget", "10%", "--db", db}).code, 0);
  // A REF the history does not know.
  const auto unknown = run_gate({"history", "check", "--since", "deadbeef", "--budget", "10%", "--db", db});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("--since deadbeef"), std::string::npos) << unknown.err;
}

TEST(HistoryCli, TwoWriterProcessesAtOnceLoseNothing) {
  TempDir d;
  const std::string db = "sqlite:" + d.path + "/h.db";
  const int per_writer = 12;
  std::vector<std::string> files;
  for (int i = 0; i < 2 * per_writer; ++i) files.push_back(write_result(d.path, "r" + std::to_string(i), 1e6, 1e3, i));
  std::atomic<int> failed{0};
  std::string errors[2];
  auto writer = [&](int w) {
    for (int i = 0; i < per_writer; ++i) {
      const int k = w * per_writer + i;
      const auto r = run_gate({"history", "add", files[k], "--commit", sha(k), "--db", db, "-q"});
      if (r.code != 0) {
        ++failed;
        errors[w] += r.err;
      }
    }
  };
  std::thread a(writer, 0), b(writer, 1);
  a.join();
  b.join();
  EXPECT_EQ(failed, 0) << errors[0] << errors[1];
  const auto show = run_gate({"history", "show", kSteady, "--quantile", "p50", "--format", "json", "--db", db});
  ASSERT_EQ(show.code, 0) << show.err;
  const auto j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["series"][0]["points"].size(), static_cast<size_t>(2 * per_writer));
}

TEST(HistoryCli, RefusedInputWritesNothing) {
  TempDir d;
  const std::string path = d.path + "/h.db";
  // A partial result: refused before the database is even created.
  gate::testing::SyntheticRun r;
  r.p50_ns = {{kSteady, 1e3}};
  ResultFile f = gate::testing::synthetic_result(r);
  f.partial = true;
  f.partial_reason = "interrupted by SIGINT";
  save_result_file(d.path + "/partial.json", f);
  auto o = run_gate({"history", "add", d.path + "/partial.json", "--commit", "abc", "--db", "sqlite:" + path});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("partial"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(path));
  // A corrupt database: named, with the fix, and left byte for byte.
  const std::string junk(4096, '\x7f');
  { std::ofstream(path, std::ios::binary) << junk; }
  o = run_gate({"history", "add", write_result(d.path, "ok", 1e6, 1e3, 1), "--commit", "abc", "--db", "sqlite:" + path});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("history database " + path), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("fix:"), std::string::npos) << o.err;
  EXPECT_EQ(*read_file(path), junk);
  // Bad flags.
  EXPECT_EQ(run_gate({"history", "add", d.path + "/ok.json", "--commit", "a", "--time", "soon", "--db", "sqlite:" +
                                                                                                      d.path + "/x.db"})
                .code,
            2);
  EXPECT_EQ(run_gate({"history", "changes", "--db", "mysql://x/y"}).code, 2);
}

TEST(HistoryCli, HelpHasExamples) {
  for (const auto& sub : {"add", "show", "changes", "check", "trend"}) {
    const auto o = run_gate({"history", sub, "--help"});
    EXPECT_EQ(o.code, 0) << sub;
    EXPECT_NE(o.out.find("Example"), std::string::npos) << sub << "\n" << o.out;
  }
  const auto b = run_gate({"bisect", "--help"});
  EXPECT_NE(b.out.find("Examples"), std::string::npos) << b.out;
}
