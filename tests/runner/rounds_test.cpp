// A service's rounds without root (runner/rounds.hpp): the keys under service:, the alternation
// gate ab chooses, {url}, and the check of calls per round against calls_change.
#include "runner/rounds.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"

namespace gate::runner {
namespace {

namespace fs = std::filesystem;

std::string write(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("gate-rounds-unit-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

std::string error_of(const std::string& yaml) {
  try {
    load_config(write("bad.yaml", yaml));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ServiceRoundsConfig, DefaultsKeysAndAlternation) {
  const Config d = load_config(write("d.yaml", R"(
binary: bin/shopd
service: {command: "bin/shopd -addr 127.0.0.1:{port}", ready_tcp: "127.0.0.1:{port}", load: "bin/load {url}"}
functions: [main.f]
)"));
  EXPECT_EQ(d.service->rounds, kDefaultServiceRounds);
  EXPECT_EQ(d.service->warmup_rounds, kDefaultServiceWarmupRounds);
  EXPECT_EQ(service_alternation(*d.service), "rounds") << "{port}: both services can be up at once";

  const Config c = load_config(write("c.yaml", R"(
binary: bin/shopd
service: {command: bin/shopd, ready_tcp: "127.0.0.1:8080", load: bin/load, rounds: 5, warmup_rounds: 0}
functions: [main.f]
)"));
  EXPECT_EQ(c.service->rounds, 5);
  EXPECT_EQ(c.service->warmup_rounds, 0);
  EXPECT_EQ(service_alternation(*c.service), "units") << "a fixed address: one service up at a time";

  auto e = error_of("binary: x\nservice: {command: s, ready_tcp: \"127.0.0.1:8080\", load: l, alternate: rounds}\n"
                    "functions: [a]\n");
  EXPECT_TRUE(has(e, "service.alternate")) << e;
  EXPECT_TRUE(has(e, "{port}")) << e;
  e = error_of("binary: x\nservice: {command: s, load: l, rounds: 0}\nfunctions: [a]\n");
  EXPECT_TRUE(has(e, "service.rounds")) << e;
  e = error_of("binary: x\nservice: {command: s, load: \"l {url}\"}\nfunctions: [a]\n");
  EXPECT_TRUE(has(e, "service.ready_tcp")) << e;
  EXPECT_TRUE(has(e, "{url}")) << e;
  e = error_of("binary: x\nservice: {command: s, load: l, alternate: sometimes}\nfunctions: [a]\n");
  EXPECT_TRUE(has(e, "auto, rounds or units")) << e;
}

TEST(ServiceRoundsConfig, UrlIsHttpAndTheFilledAddress) {
  ServiceSpec sv;
  sv.command = "svc -addr 127.0.0.1:{port}";
  sv.ready_tcp = "127.0.0.1:{port}";
  sv.load = "hey -n 100 {url}/checkout";
  const ServiceSpec f = with_free_port(sv);
  const std::string port = f.ready_tcp.substr(f.ready_tcp.find(':') + 1);
  ASSERT_FALSE(port.empty());
  EXPECT_EQ(f.command, "svc -addr 127.0.0.1:" + port);
  EXPECT_EQ(f.load, "hey -n 100 http://127.0.0.1:" + port + "/checkout");
}

RunResult round_with(uint64_t a, uint64_t b) {
  RunResult r;
  FunctionRun f1, f2;
  f1.name = "main.a";
  f1.calls = a;
  f2.name = "main.b";
  f2.calls = b;
  r.functions = {f1, f2};
  return r;
}

TEST(ServiceRoundsCalls, ARoundPastCallsChangeIsNamedAndOthersAreNot) {
  // Totals 100, 100, 40, 100 (round 3 lost 60%) and 150 in a second case (+50% is not past 50%).
  const std::vector<RunResult> rounds = {round_with(60, 40), round_with(60, 40), round_with(20, 20),
                                         round_with(60, 40)};
  const auto notes = round_call_notes(rounds, 0.5, 7, "head");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].round, "unit 7, round 3 of 4 (head)");
  EXPECT_EQ(notes[0].calls, 40u);
  EXPECT_EQ(notes[0].median, 100);
  EXPECT_DOUBLE_EQ(notes[0].change, -0.6);
  EXPECT_EQ(notes[0].calls_change, 0.5);
  EXPECT_TRUE(round_call_notes({round_with(60, 40), round_with(90, 60)}, 0.5, 1, "").empty())
      << "+50% is within a 50% calls_change";
  EXPECT_EQ(round_call_notes({round_with(60, 40), round_with(90, 60)}, 0.2, 1, "").size(), 2u)
      << "two rounds 50% apart: each is past 20% of the other";
  EXPECT_TRUE(round_call_notes({round_with(60, 40)}, 0.5, 1, "").empty()) << "one round has no others";

  // Kept in the result file and read back for a side's report: the same values, the side named.
  ResultFile r;
  add_round_call_notes(r, notes);
  const auto back = recorded_round_calls(r, "head");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].side, "head");
  EXPECT_EQ(back[0].round, notes[0].round);
  EXPECT_EQ(back[0].calls, notes[0].calls);
  EXPECT_EQ(back[0].median, notes[0].median);
  EXPECT_EQ(back[0].change, notes[0].change) << "%.17g reads back the same double";
  EXPECT_EQ(back[0].calls_change, notes[0].calls_change);
  EXPECT_TRUE(back[0].recorded.empty());
  add_round_call_notes(r, {});
  EXPECT_EQ(recorded_round_calls(r, "head").size(), 1u);

  // A file written before the values holds the sentence: kept as written.
  r.extra[kRoundCallsKey] += "\nunit 1, round 2 of 3 (base) timed 5 calls of the declared functions";
  const auto both = recorded_round_calls(r, "base");
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[1].recorded, "unit 1, round 2 of 3 (base) timed 5 calls of the declared functions");
}

// gate calibrate on a service: short rounds are told how many make a unit of the target length;
// rounds already that long are told so.
TEST(ServiceRoundsAdvice, RoundsForTheUnitTarget) {
  ServiceSpec sv;
  sv.rounds = 3;
  sv.warmup_rounds = 1;
  ResultFile short_rounds;
  for (int i = 0; i < 4; ++i) {
    RunResult r;
    r.executions = 3;
    r.duration_s = 0.3;  // 0.1 s a round
    short_rounds.runs.push_back(r);
  }
  const std::string a = round_advice(short_rounds, sv, 1.0);
  EXPECT_TRUE(has(a, "3 measured rounds per start after 1 warm-up round (one round: 0.10 s")) << a;
  EXPECT_TRUE(has(a, "rounds: 10 would make a unit of at least 1.0 s")) << a;
  ResultFile long_rounds = short_rounds;
  for (auto& r : long_rounds.runs) r.duration_s = 4.5;  // 1.5 s a round
  const std::string b = round_advice(long_rounds, sv, 1.0);
  EXPECT_FALSE(has(b, "would make a unit")) << b;
  EXPECT_TRUE(has(b, "enough rounds")) << b;
}

}  // namespace
}  // namespace gate::runner
