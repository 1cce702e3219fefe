// gate/cli/flag_table: every flag of check, compare, ab and merge has a row, and the reproduce line
// built from a parsed command line carries every flag the table carries (gate check --true-time
// once lost --true-time), in an order that parses back to the same line.
#include "cli/flag_table.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "cli/commands.hpp"

namespace gate::cli {
namespace {

using Add = std::function<int()> (*)(CLI::App&, const Globals&);

struct Command {
  const char* name;
  Add add;
};
const Command kReporting[] = {
    {"check", add_check}, {"compare", add_compare}, {"ab", add_ab}, {"merge", add_merge}};

// A parsed `gate ARGS...`: the top-level app owns the subcommand.
struct Parsed {
  Globals g;
  std::unique_ptr<CLI::App> app = std::make_unique<CLI::App>("gate");
  CLI::App* sub = nullptr;
  std::function<int()> run;  // owns the flags' variables: kept while the app parses into them
};
std::unique_ptr<Parsed> parse(const char* command, Add add, std::vector<std::string> args) {
  auto p = std::make_unique<Parsed>();
  p->sub = p->app->add_subcommand(command);
  p->run = add(*p->sub, p->g);
  args.insert(args.begin(), command);
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  p->app->parse(args);
  return p;
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

TEST(FlagTable, EveryFlagOfAReportingCommandHasARule) {
  for (const auto& c : kReporting) {
    Globals g;
    CLI::App app("gate");
    CLI::App* sub = app.add_subcommand(c.name);
    c.add(*sub, g);
    for (const CLI::Option* o : sub->get_options()) {
      if (o == sub->get_help_ptr()) continue;
      const FlagRule* rule = rule_of(*o);
      EXPECT_NE(rule, nullptr) << "gate " << c.name << "'s " << o->get_name(true, true)
                               << " has no row in gate/cli/flag_table.cpp: say whether a reproduce line carries it";
      if (rule && rule->rerun == Rerun::kLeftOut) {
        EXPECT_NE(rule->why, nullptr) << rule->name << " is left out of reproduce lines without a reason";
      }
    }
  }
}

TEST(FlagTable, NamesARowOnce) {
  const auto& t = flag_table();
  for (size_t i = 0; i < t.size(); ++i)
    for (size_t j = i + 1; j < t.size(); ++j) EXPECT_STRNE(t[i].name, t[j].name);
}

// The bug the table fixed: the reproduce line of gate check --true-time measured raw times.
TEST(FlagTable, CheckCarriesTrueTimeAndRawTimes) {
  auto p = parse("check", add_check, {"-c", "gate.yaml", "--true-time", "--recalibrate"});
  EXPECT_EQ(join(rerun_args(*p->sub)), "check -c gate.yaml --true-time");
  p = parse("check", add_check, {"--raw-times", "--config", "gate.yaml", "-n", "10"});
  EXPECT_EQ(join(rerun_args(*p->sub)), "check -c gate.yaml --runs 10 --raw-times");
}

// Every flag the table carries, given on a command line, is in its reproduce line, and the line
// parses back to itself. A carried flag missing below fails the test: add it to the command line.
struct Case {
  const char* name;
  Add add;
  std::vector<std::string> args;
};
const Case kFull[] = {
    {"check", add_check,
     {"-c", "g.yaml", "-n", "5", "--keep-output", "logs", "--attach-mode", "perf_event", "--no-build",
      "--true-time", "--recalibrate", "--exclude-preemption", "-b", "base.json", "--max-runs", "20", "-o",
      "head.json", "--fail-on-suspect", "--suspect-max-runs", "40", "--format", "json", "--output", "r.json",
      "--baseline-ref", "origin/main", "--profile=99"}},
    {"check", add_check, {"-c", "g.yaml", "--raw-times", "--no-exclude-preemption", "--no-fail-on-suspect",
                          "--report-dir", "out"}},
    {"ab", add_ab,
     {"-c", "g.yaml", "--runs", "8", "--base-binary", "b1", "--base-binary", "b2", "--head-binary", "h1",
      "--head-binary", "h2", "--max-runs", "30", "--seed", "7", "--slice-ms", "200", "--out-base", "b.json",
      "--out-head", "h.json", "--shard", "1/2", "--partial-out", "p.json", "--baseline-ref", "main"}},
    {"compare", add_compare, {"base.json", "head.json", "-c", "g.yaml", "--fail-on-suspect"}},
    {"merge", add_merge, {"-c", "g.yaml", "s1.json", "s2.json", "--no-fail-on-suspect", "--baseline-ref", "main"}},
};

TEST(FlagTable, AReproduceLineCarriesEveryCarriedFlag) {
  for (const auto& c : kFull) {
    auto p = parse(c.name, c.add, c.args);
    const auto rerun = rerun_args(*p->sub);
    const std::string line = join(rerun);
    for (const CLI::Option* o : p->sub->get_options()) {
      if (o->count() == 0) continue;
      const FlagRule* rule = rule_of(*o);
      ASSERT_NE(rule, nullptr) << o->get_name(true, true);
      const std::string spelled = rule->spelling ? rule->spelling : rule->name;
      const bool in_line = o->get_positional() ? line.find(o->results().front()) != std::string::npos
                                               : std::find(rerun.begin(), rerun.end(), spelled) != rerun.end();
      EXPECT_EQ(in_line, rule->rerun == Rerun::kCarried) << "gate " << c.name << ": " << rule->name << " in " << line;
    }
    // Parsed again, the line reproduces itself.
    auto again = parse(c.name, c.add, {rerun.begin() + 1, rerun.end()});
    EXPECT_EQ(join(rerun_args(*again->sub)), line);
  }
}

// The lines the reports printed before the table, unchanged (tests/ci/pre_merge_test.sh reads ab's).
TEST(FlagTable, LinesAsBefore) {
  auto p = parse("ab", add_ab, {"-c", "shop/gate.yaml", "--runs", "8", "--base-binary", "keep/base", "--head-binary",
                                "keep/head", "--max-runs", "30", "--report-dir", "r"});
  EXPECT_EQ(join(rerun_args(*p->sub)),
            "ab -c shop/gate.yaml --runs 8 --base-binary keep/base --head-binary keep/head --max-runs 30");
  p = parse("compare", add_compare, {"a.json", "b.json", "--baseline-ref", "origin/main"});
  EXPECT_EQ(join(rerun_args(*p->sub)), "compare a.json b.json --baseline-ref origin/main");
  p = parse("merge", add_merge, {"s1.json", "s2.json", "-c", "g.yaml"});
  EXPECT_EQ(join(rerun_args(*p->sub)), "merge -c g.yaml s1.json s2.json");
  p = parse("check", add_check, {"-c", "g.yaml", "--fail-on-suspect", "--suspect-max-runs", "40"});
  EXPECT_EQ(join(rerun_args(*p->sub)), "check -c g.yaml --fail-on-suspect --suspect-max-runs 40");
}

}  // namespace
}  // namespace gate::cli
