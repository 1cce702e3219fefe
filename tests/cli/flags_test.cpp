// gate/cli/flags: every option of every command and subcommand was declared with a rerun rule (a
// declaration without one does not compile), the reporting commands' rules are those the flag table
// gave before them, and the reproduce line built from a parsed command line carries every carried
// flag (gate check --true-time once lost --true-time), in an order that parses back to the same line.
#include "cli/flags.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <type_traits>

#include "cli/commands.hpp"

namespace gate::cli {
namespace {

using Add = std::function<int()> (*)(CLI::App&, const Globals&);

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

// A rule is not optional: Rerun has no default, and option(), flag() and flag_callback() take one.
template <typename T>
concept DeclaresWithoutARule = requires(CLI::App& app, T& v) { option(app, std::string("--x"), v, std::string("h")); };
template <typename T>
concept DeclaresWithAnEmptyRule = requires(CLI::App& app, T& v) { option(app, std::string("--x"), {}, v, std::string("h")); };
template <typename T>
concept SwitchWithoutARule = requires(CLI::App& app, T& v) { flag(app, std::string("--x"), v, std::string("h")); };
template <typename T>
concept DeclaresWithARule = requires(CLI::App& app, T& v) {
  option(app, std::string("--x"), Rerun::kCarried, v, std::string("h"));
};
static_assert(!std::is_default_constructible_v<Rerun>);
static_assert(!std::is_constructible_v<Rerun, Rerun::Kind>);
static_assert(!DeclaresWithoutARule<int> && !DeclaresWithoutARule<std::string>);
static_assert(!DeclaresWithAnEmptyRule<int>);
static_assert(!SwitchWithoutARule<bool>);
static_assert(DeclaresWithARule<int>);  // the checks above fail for want of the rule, not of anything else
static_assert(!std::is_invocable_v<decltype(&flag_callback), CLI::App&, const std::string&, std::function<void()>,
                                   const std::string&>);

// Every command as main.cpp builds it (commands.cpp), with its subcommands.
struct Tree {
  Globals g;
  CLI::App app{"gate", "gate"};
  std::map<CLI::App*, std::function<int()>> handlers = add_commands(app, g);
};

// app and every subcommand under it, depth first.
void walk(const CLI::App& app, const std::string& path, std::vector<std::pair<std::string, const CLI::App*>>& out) {
  out.push_back({path, &app});
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    walk(*sub, path + " " + sub->get_name(), out);
}

bool reporting(const std::string& path) {
  return path == "gate check" || path == "gate compare" || path == "gate ab" || path == "gate merge";
}

TEST(Flags, EveryOptionOfEveryCommandHasARule) {
  Tree t;
  std::vector<std::pair<std::string, const CLI::App*>> apps;
  walk(t.app, "gate", apps);
  ASSERT_EQ(apps.size(), 1u + 11 + 5) << "gate, its 11 commands and history's 5 subcommands";
  for (const auto& [path, app] : apps) {
    size_t options = 0;
    for (const CLI::Option* o : app->get_options()) {
      if (o == app->get_help_ptr() || o == app->get_version_ptr()) continue;  // CLI11's own
      ++options;
      const Rerun* rule = rule_of(*o);
      ASSERT_NE(rule, nullptr) << path << "'s " << o->get_name(true, true)
                               << " was not declared through gate/cli/flags.hpp: give it a Rerun rule there";
      if (rule->kind() == Rerun::Kind::kLeftOut) {
        ASSERT_NE(rule->why(), nullptr) << path << "'s " << o->get_name(true, true);
        EXPECT_STRNE(rule->why(), "") << path << "'s " << o->get_name(true, true);
      }
      if (reporting(path)) {
        EXPECT_NE(rule->kind(), Rerun::Kind::kNoReport)
            << path << " prints a report: say whether its reproduce line carries " << o->get_name(true, true);
      }
      if (rule->spelling()) {  // a spelling is one of the flag's own names
        EXPECT_TRUE(o->check_name(rule->spelling())) << path << ": " << rule->spelling();
      }
    }
    // A walk that missed a command's flags would pass the checks above.
    if (path != "gate history") EXPECT_GT(options, 0u) << path << " has no flags";
  }
}

// The walk above finds a flag that skipped flags.hpp: it has no rule, even at an address a
// declared option of an app now gone had.
TEST(Flags, AFlagDeclaredOtherwiseHasNoRule) {
  int v = 0;
  for (int i = 0; i < 3; ++i) {
    CLI::App declared("gate");
    option(declared, "--declared", Rerun::kCarried, v, "");
  }
  CLI::App app("gate");
  const CLI::Option* o = app.add_option("--skipped", v, "");
  EXPECT_EQ(rule_of(*o), nullptr);
  EXPECT_EQ(rule_of(*app.get_help_ptr()), nullptr);
  const CLI::Option* d = option(app, "--declared", Rerun::left_out("a test's"), v, "");
  ASSERT_NE(rule_of(*d), nullptr);
  EXPECT_EQ(rule_of(*d)->kind(), Rerun::Kind::kLeftOut);
}

// The flag table the rules replaced (gate/cli/flag_table.cpp, issue 57): each flag of check,
// compare, ab and merge, whether a reproduce line carried it and how it was written. The rules at
// the declarations give the same, so every reproduce line is as it was.
struct Before {
  const char* name;
  bool carried;
  const char* spelling;
};
const Before kBefore[] = {
    {"--config", true, "-c"},
    {"--runs", true, nullptr},
    {"--keep-output", false, nullptr},
    {"--attach-mode", true, nullptr},
    {"--no-build", true, nullptr},
    {"--true-time", true, nullptr},
    {"--raw-times", true, nullptr},
    {"--exclude-preemption", true, nullptr},
    {"--no-exclude-preemption", true, nullptr},
    {"--run-as", true, nullptr},
    {"--recalibrate", false, nullptr},
    {"base", true, nullptr},
    {"head", true, nullptr},
    {"partials", true, nullptr},
    {"--baseline", true, nullptr},
    {"--base-binary", true, nullptr},
    {"--head-binary", true, nullptr},
    {"--max-runs", true, nullptr},
    {"--seed", true, nullptr},
    {"--slice-ms", true, nullptr},
    {"--fail-on-suspect", true, nullptr},
    {"--no-fail-on-suspect", true, nullptr},
    {"--suspect-max-runs", true, nullptr},
    {"--baseline-ref", true, nullptr},
    {"--thresholds-ref", true, nullptr},
    {"--out", false, nullptr},
    {"--out-base", false, nullptr},
    {"--out-head", false, nullptr},
    {"--format", false, nullptr},
    {"--output", false, nullptr},
    {"--report-dir", false, nullptr},
    {"--profile", false, nullptr},
    {"--shard", false, nullptr},
    {"--partial-out", false, nullptr},
};

// "--runs" for -n,--runs; "base" for a positional: the table's names.
std::string table_name(const CLI::Option& o) {
  if (!o.get_lnames().empty()) return "--" + o.get_lnames().front();
  return o.get_name(true);
}

TEST(Flags, ReportingCommandsRulesAsTheTableHadThem) {
  Tree t;
  std::vector<std::string> seen;
  for (const char* command : {"check", "compare", "ab", "merge"}) {
    const CLI::App* sub = t.app.get_subcommand(command);
    for (const CLI::Option* o : sub->get_options()) {
      if (o == sub->get_help_ptr()) continue;
      const std::string name = table_name(*o);
      const auto row = std::find_if(std::begin(kBefore), std::end(kBefore), [&](const Before& b) { return name == b.name; });
      ASSERT_NE(row, std::end(kBefore)) << "gate " << command << "'s " << name << " is new: add it to kBefore";
      const Rerun* rule = rule_of(*o);
      ASSERT_NE(rule, nullptr) << name;
      EXPECT_EQ(rule->kind() == Rerun::Kind::kCarried, row->carried) << "gate " << command << "'s " << name;
      EXPECT_STREQ(rule->spelling() ? rule->spelling() : "", row->spelling ? row->spelling : "") << name;
      seen.push_back(name);
    }
  }
  for (const auto& b : kBefore)
    EXPECT_NE(std::find(seen.begin(), seen.end(), b.name), seen.end()) << b.name << " is no flag of a reporting command";
}

// The bug the table fixed: the reproduce line of gate check --true-time measured raw times.
TEST(Flags, CheckCarriesTrueTimeAndRawTimes) {
  auto p = parse("check", add_check, {"-c", "gate.yaml", "--true-time", "--recalibrate"});
  EXPECT_EQ(join(rerun_args(*p->sub)), "check -c gate.yaml --true-time");
  p = parse("check", add_check, {"--raw-times", "--config", "gate.yaml", "-n", "10"});
  EXPECT_EQ(join(rerun_args(*p->sub)), "check -c gate.yaml --runs 10 --raw-times");
}

// Every flag carried, given on a command line, is in its reproduce line, and the line
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

TEST(Flags, AReproduceLineCarriesEveryCarriedFlag) {
  for (const auto& c : kFull) {
    auto p = parse(c.name, c.add, c.args);
    const auto rerun = rerun_args(*p->sub);
    const std::string line = join(rerun);
    for (const CLI::Option* o : p->sub->get_options()) {
      if (o->count() == 0) continue;
      const Rerun* rule = rule_of(*o);
      ASSERT_NE(rule, nullptr) << o->get_name(true, true);
      const std::string name = spelled(*o);
      const bool in_line = o->get_positional() ? line.find(o->results().front()) != std::string::npos
                                               : std::find(rerun.begin(), rerun.end(), name) != rerun.end();
      EXPECT_EQ(in_line, rule->kind() == Rerun::Kind::kCarried) << "gate " << c.name << ": " << name << " in " << line;
    }
    // Parsed again, the line reproduces itself.
    auto again = parse(c.name, c.add, {rerun.begin() + 1, rerun.end()});
    EXPECT_EQ(join(rerun_args(*again->sub)), line);
  }
}

// The lines the reports printed before the flag table, unchanged (tests/ci/pre_merge_test.sh reads ab's).
TEST(Flags, LinesAsBefore) {
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
