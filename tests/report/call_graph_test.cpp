// Folded stacks from a result's call edges: exact splits on a small graph, conservation of time,
// recursion folded into one frame, and nothing without true time.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "report/call_graph.hpp"

namespace gate::report {
namespace {

FunctionRun fn(const std::string& name, uint64_t calls, uint64_t sum, uint64_t self,
               std::vector<TrueTimeRun::Caller> callers = {}) {
  FunctionRun f;
  f.name = name;
  f.calls = calls;
  f.sum_ns = sum;
  f.histogram.add(sum / calls, calls);
  f.true_time.present = true;
  f.true_time.self_sum_ns = self;
  f.true_time.callers = std::move(callers);
  return f;
}

std::map<std::string, uint64_t> lines(const std::string& folded) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(folded);
  for (std::string l; std::getline(in, l);) {
    const auto sp = l.rfind(' ');
    out[l.substr(0, sp)] = std::stoull(l.substr(sp + 1));
  }
  return out;
}

// main.Handle (1000 ns) calls Parse (300) and Price (600); Price calls Round (100), which the
// batch job also calls directly (50, no traced caller).
ResultFile shop() {
  ResultFile r;
  RunResult run;
  run.index = 1;
  run.functions = {fn("main.Handle", 10, 1000, 100),
                   fn("main.Parse", 10, 300, 300, {{"main.Handle", 10, 300}}),
                   fn("main.Price", 10, 600, 500, {{"main.Handle", 10, 600}}),
                   fn("main.Round", 15, 150, 150, {{"main.Price", 10, 100}})};
  r.runs = {run, run};  // two runs: sums double
  r.runs[1].index = 2;
  return r;
}

TEST(Folded, SplitsTimeAlongEdgesAndKeepsItAll) {
  const auto got = lines(render_folded(shop()));
  const std::map<std::string, uint64_t> want = {
      {"main.Handle", 200},                       // self
      {"main.Handle;main.Parse", 600},
      {"main.Handle;main.Price", 1000},           // Price's self under Handle
      {"main.Handle;main.Price;main.Round", 200},
      {"main.Round", 100},                        // Round's calls without a traced caller
  };
  EXPECT_EQ(got, want);
  uint64_t total = 0;
  for (const auto& [k, v] : got) total += v;
  EXPECT_EQ(total, 2u * (1000 + 50)) << "every root's time, once";
}

TEST(Folded, RecursionIsFoldedIntoOneFrame) {
  ResultFile r;
  RunResult run;
  run.index = 1;
  // Walk: 100 calls, 1000 ns in all; 90 of them (800 ns) under another Walk.
  run.functions = {fn("main.Walk", 100, 1000, 200, {{"main.Walk", 90, 800}})};
  r.runs = {run};
  const auto got = lines(render_folded(r));
  // The top-level calls' 200 ns: a fifth is Walk's own code (its self share over all calls), the
  // rest is deeper Walks, kept in one frame instead of unrolled.
  EXPECT_EQ(got.at("main.Walk"), 40u);
  EXPECT_EQ(got.at("main.Walk;main.Walk"), 160u);
  EXPECT_EQ(got.size(), 2u);
}

TEST(Folded, NothingWithoutTrueTime) {
  ResultFile r = shop();
  for (auto& run : r.runs)
    for (auto& f : run.functions) f.true_time = {};
  EXPECT_EQ(render_folded(r), "");
}

TEST(Folded, AbTakesOneSide) {
  ResultFile r = shop();
  r.runs[0].variant = "base";
  r.runs[1].variant = "head";
  r.runs[1].functions[0].sum_ns = 2000;  // head's Handle took longer in its own code
  r.runs[1].functions[0].true_time.self_sum_ns = 1100;
  EXPECT_EQ(lines(render_folded(r, "base")).at("main.Handle"), 100u);
  EXPECT_EQ(lines(render_folded(r, "head")).at("main.Handle"), 1100u);
}

}  // namespace
}  // namespace gate::report
