// The SQLite history store: idempotent ingest, ordering, machines as separate series, two writers
// at once, and corrupt or foreign files refused without a byte changed. No root.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "common/error.hpp"
#include "common/files.hpp"
#include "history/db.hpp"
#include "history/series.hpp"
#include "history/store.hpp"
#include "history/synthetic.hpp"

using namespace gate;
using namespace gate::history;
namespace fs = std::filesystem;

using gate::testing::TempDir;
using gate::testing::error_of;

namespace {

const std::string kFn = "example.com/shop/pricing.Apply";

IngestOutcome add(Store& s, double level, const std::string& commit, const std::string& time, uint64_t seed = 1,
                  const std::string& kernel = "6.1.0-test") {
  gate::testing::SyntheticRun r;
  r.p50_ns = {{kFn, level}};
  r.seed = seed;
  r.kernel = kernel;
  const ResultFile f = gate::testing::synthetic_result(r);
  return s.add(f, result_to_json_text(f), {commit, "", "main", time}, "synthetic.json");
}

}  // namespace

TEST(HistoryStore, RetriedUploadAddsNothing) {
  TempDir d;
  Store s = Store::open("sqlite:" + d.path + "/h.db", true);
  EXPECT_TRUE(add(s, 1e6, "c01", "2026-01-01T00:00:01Z").added);
  const IngestOutcome again = add(s, 1e6, "c01", "2026-01-01T00:00:01Z");
  EXPECT_FALSE(again.added);
  EXPECT_EQ(s.result_count(), 1);
  EXPECT_EQ(s.runs_of(kFn).size(), 5u);  // 5 runs, once
  // The same bytes under another commit are another measurement.
  EXPECT_TRUE(add(s, 1e6, "c02", "2026-01-01T00:00:02Z").added);
  EXPECT_EQ(s.result_count(), 2);
}

TEST(HistoryStore, KeepsFiguresPerRunInCommitTimeOrder) {
  TempDir d;
  Store s = Store::open("sqlite:" + d.path + "/h.db", true);
  add(s, 2e6, "c02", "2026-01-02T00:00:00Z", 2);
  add(s, 1e6, "c01", "2026-01-01T00:00:00+00:00", 1);  // added later, committed earlier
  const auto runs = s.runs_of(kFn);
  ASSERT_EQ(runs.size(), 10u);
  EXPECT_EQ(runs.front().commit, "c01");
  EXPECT_EQ(runs.back().commit, "c02");
  EXPECT_EQ(runs.front().calls, 1000u);
  EXPECT_NEAR(runs.front().p50_ns / 1e6, 1.0, 0.1);
  const auto series = build_series(kFn, runs, {"p50"});
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].points.size(), 2u);
  EXPECT_EQ(series[0].points[0].runs, 5);
  EXPECT_NEAR(series[0].points[1].value / series[0].points[0].value, 2.0, 0.1);
  EXPECT_LE(series[0].points[0].lo, series[0].points[0].value);
  EXPECT_GE(series[0].points[0].hi, series[0].points[0].value);
}

TEST(HistoryStore, EachMachineIsItsOwnSeries) {
  TempDir d;
  Store s = Store::open("sqlite:" + d.path + "/h.db", true);
  add(s, 1e6, "c01", "2026-01-01T00:00:00Z", 1, "6.1.0-a");
  add(s, 3e6, "c01", "2026-01-01T00:00:00Z", 1, "6.1.0-b");  // another kernel: another machine
  EXPECT_EQ(s.machines().size(), 2u);
  EXPECT_EQ(build_series(kFn, s.runs_of(kFn), {"p50", "p99"}).size(), 4u);
  RunContext a, b;
  a.cpu_model = b.cpu_model = "X";
  a.kernel = b.kernel = "6.1";
  a.go_version = b.go_version = "go1.21";
  a.gate_version = b.gate_version = "1";
  a.hostname = "runner-1";
  b.hostname = "runner-2";  // the host's name is not the machine's kind
  EXPECT_EQ(machine_of(a).id, machine_of(b).id);
  b.go_version = "go1.22";
  EXPECT_NE(machine_of(a).id, machine_of(b).id);
}

TEST(HistoryStore, TwoWritersAtOnceLoseNothing) {
  TempDir d;
  const std::string url = "sqlite:" + d.path + "/h.db";
  Store::open(url, true);
  const int per_writer = 20;
  auto writer = [&](int w) {
    Store s = Store::open(url, true);  // its own connection, as another process would have
    for (int i = 0; i < per_writer; ++i)
      add(s, 1e6, "w" + std::to_string(w) + "-" + std::to_string(i), "2026-01-01T00:00:00Z", 100 * w + i);
  };
  std::thread a(writer, 1), b(writer, 2);
  a.join();
  b.join();
  Store s = Store::open(url, false);
  EXPECT_EQ(s.result_count(), 2 * per_writer);
  EXPECT_EQ(s.runs_of(kFn).size(), 2u * per_writer * 5);
}

TEST(HistoryStore, CorruptFileIsNamedAndLeftAsItIs) {
  TempDir d;
  const std::string path = d.path + "/h.db";
  std::string junk(8192, 'x');
  junk.replace(0, 20, "not a database at all");
  std::ofstream(path, std::ios::binary) << junk;
  const std::string err = error_of([&] { Store::open("sqlite:" + path, true); });
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find("not a database"), std::string::npos) << err;
  EXPECT_NE(err.find("fix:"), std::string::npos) << err;
  EXPECT_EQ(*read_file(path), junk);  // not a byte changed
  EXPECT_FALSE(fs::exists(path + "-wal"));
}

TEST(HistoryStore, ForeignDatabaseIsRefusedAndKept) {
  TempDir d;
  const std::string path = d.path + "/other.db";
  {
    auto db = open_sqlite(path, true);
    db->exec("CREATE TABLE users (name TEXT)");
    db->exec("INSERT INTO users VALUES ('ada')");
  }
  const std::string err = error_of([&] { Store::open("sqlite:" + path, true); });
  EXPECT_NE(err.find("is not a gate history"), std::string::npos) << err;
  EXPECT_NE(err.find("users"), std::string::npos) << err;
  auto db = open_sqlite(path, false);
  EXPECT_EQ(db->query("SELECT name FROM users").at(0).at(0), "ada");
  EXPECT_EQ(db->tables(), std::vector<std::string>{"users"});  // no gate table was added
  // A gate_meta naming another schema, and one from a newer gate.
  db->exec("CREATE TABLE gate_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  db->exec("INSERT INTO gate_meta VALUES ('schema', 'something.else')");
  EXPECT_NE(error_of([&] { Store::open("sqlite:" + path, true); }).find("something.else"), std::string::npos);
  db->exec("UPDATE gate_meta SET value = 'gate.history' WHERE key = 'schema'");
  db->exec("INSERT INTO gate_meta VALUES ('version', '99')");
  EXPECT_NE(error_of([&] { Store::open("sqlite:" + path, true); }).find("newer gate"), std::string::npos);
}

TEST(HistoryStore, MissingHistoryForAReadNamesTheFix) {
  TempDir d;
  const std::string err = error_of([&] { Store::open("sqlite:" + d.path + "/none.db", false); });
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
  EXPECT_NE(err.find("gate history add"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(d.path + "/none.db"));
}

TEST(HistoryStore, PartialResultIsRefusedBeforeAnyWrite) {
  TempDir d;
  Store s = Store::open("sqlite:" + d.path + "/h.db", true);
  gate::testing::SyntheticRun r;
  r.p50_ns = {{kFn, 1e6}};
  ResultFile f = gate::testing::synthetic_result(r);
  f.partial = true;
  f.partial_reason = "interrupted";
  EXPECT_NE(error_of([&] { s.add(f, result_to_json_text(f), {"c01", "", "", "2026-01-01T00:00:00Z"}, "p.json"); })
                .find("partial"),
            std::string::npos);
  EXPECT_EQ(s.result_count(), 0);
}

TEST(HistoryStore, TimesAndUrls) {
  EXPECT_EQ(normalize_time("2026-11-26T15:00:00+01:00", "--time"), "2026-11-26T14:00:00Z");
  EXPECT_EQ(normalize_time("1795701600", "--time"), "2026-11-26T14:00:00Z");
  EXPECT_EQ(normalize_time("@1795701600", "--time"), "2026-11-26T14:00:00Z");
  EXPECT_EQ(normalize_time("2026-11-26 14:00:00", "--time"), "2026-11-26T14:00:00Z");
  EXPECT_THROW(normalize_time("yesterday", "--time"), Error);
  EXPECT_EQ(parse_db_url("sqlite:a/b.db").target, "a/b.db");
  EXPECT_EQ(parse_db_url("postgresql://u:secret@h/db").shown, "postgresql://u:***@h/db");
  EXPECT_THROW(parse_db_url("mysql://h/db"), Error);
}
