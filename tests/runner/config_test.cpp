// gate.yaml validation: every mistake is an error that names the file, the line, the key and a
// fix; valid configs parse into the right values.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "runner/config.hpp"

namespace gate::runner {
namespace {

namespace fs = std::filesystem;

std::string write(const std::string& name, const std::string& text) {
  // One folder per process: ctest -j2 runs these tests side by side, each in its own process, and
  // a shared c.yaml was rewritten under another test's load_config.
  const fs::path dir = fs::temp_directory_path() / ("gate-config-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const auto p = (dir / name).string();
  std::ofstream(p) << text;
  return p;
}

std::string error_of(const std::string& yaml) {
  try {
    load_config(write("c.yaml", yaml));
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    return e.what();
  }
  return "";
}

TEST(Config, ParsesEveryKey) {
  const auto p = write("full.yaml", R"(
name: shop
build: go build -o bin/shop ./cmd/shop
binary: bin/shop
workload: bin/shop -orders 10
runs: 7
max_runs: 12
warmup_runs: 1
timeout: 90s
max_in_flight: 100000
env: {GOMAXPROCS: "2"}
functions:
  - example.com/shop.(*Cart).Checkout
  - name: example.com/shop/pricing.*
    threshold: 15%
    thresholds: {p99: 0.4}
quantiles: [p50, p90, mean]
threshold: 0.08
thresholds: {p99: 25%}
calls_change: 100%
fail_on_calls_change: true
fail_on_insufficient_data: true
speed_normalization: false
exclude_preemption: true
pairing: off
baseline: ../b/shop.json
)");
  const Config c = load_config(p);
  EXPECT_EQ(c.name, "shop");
  EXPECT_EQ(c.binary, (fs::path(p).parent_path() / "bin/shop").string());
  EXPECT_EQ(c.runs, 7);
  EXPECT_EQ(c.max_runs, 12);
  EXPECT_EQ(c.warmup_runs, 1);
  EXPECT_DOUBLE_EQ(c.timeout_s, 90);
  EXPECT_EQ(c.max_in_flight, 100000u);
  EXPECT_EQ(c.env.at("GOMAXPROCS"), "2");
  ASSERT_EQ(c.functions.size(), 2u);
  EXPECT_EQ(c.functions[0].pattern, "example.com/shop.(*Cart).Checkout");
  EXPECT_DOUBLE_EQ(*c.functions[1].threshold, 0.15);
  EXPECT_DOUBLE_EQ(c.functions[1].quantile_thresholds.at("p99"), 0.4);
  EXPECT_EQ(c.quantiles, (std::vector<std::string>{"p50", "p90", "mean"}));
  EXPECT_DOUBLE_EQ(*c.threshold, 0.08);
  EXPECT_DOUBLE_EQ(c.quantile_thresholds.at("p99"), 0.25);
  EXPECT_DOUBLE_EQ(c.calls_change, 1.0);
  EXPECT_TRUE(c.fail_on_calls_change);
  EXPECT_TRUE(c.fail_on_insufficient);
  EXPECT_FALSE(c.speed_normalization);
  EXPECT_EQ(c.exclude_preemption, std::optional<bool>(true));
  EXPECT_EQ(c.pairing, "off");
  EXPECT_EQ(c.hash.rfind("fnv1a64:", 0), 0u);
}

// speed_normalization takes fitted (the default), true (the factor itself) or false; anything else
// names the key and the three values.
TEST(Config, SpeedNormalizationFitted) {
  const Config f = load_config(write("fit.yaml", "binary: bin/x\nworkload: bin/x\nfunctions: [main.f]\n"
                                                 "speed_normalization: fitted\n"));
  EXPECT_TRUE(f.speed_normalization);
  EXPECT_TRUE(f.fit_speed_elasticity);
  const Config d = load_config(write("d.yaml", "binary: bin/x\nworkload: bin/x\nfunctions: [main.f]\n"));
  EXPECT_TRUE(d.speed_normalization);
  EXPECT_TRUE(d.fit_speed_elasticity);
  const Config t = load_config(write("t.yaml", "binary: bin/x\nworkload: bin/x\nfunctions: [main.f]\n"
                                               "speed_normalization: true\n"));
  EXPECT_TRUE(t.speed_normalization);
  EXPECT_FALSE(t.fit_speed_elasticity);
  try {
    load_config(write("bad.yaml", "binary: bin/x\nworkload: bin/x\nfunctions: [main.f]\nspeed_normalization: fit\n"));
    FAIL() << "speed_normalization: fit was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("speed_normalization"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("true, false or fitted"), std::string::npos) << e.what();
  }
}

TEST(Config, ServiceForm) {
  const Config c = load_config(write("svc.yaml", R"(
binary: bin/shopd
service: {command: bin/shopd -addr 127.0.0.1:1, ready_tcp: "127.0.0.1:1", load: bin/load, stop_timeout: 5s}
functions: [main.f]
)"));
  ASSERT_TRUE(c.service.has_value());
  EXPECT_EQ(c.service->ready_tcp, "127.0.0.1:1");
  EXPECT_DOUBLE_EQ(c.service->stop_timeout_s, 5);
  EXPECT_TRUE(c.workload.empty());
}

// The per-function optional key, and {port} that must appear in ready_tcp whenever the command or
// the load uses it (else gate would wait on a port nobody opens).
TEST(Config, OptionalFunctionsAndPortPlaceholder) {
  const Config c = load_config(write("opt.yaml", R"(
binary: bin/shopd
service: {command: "bin/shopd -addr 127.0.0.1:{port}", ready_tcp: "127.0.0.1:{port}", load: "bin/load {port}"}
functions: [main.f, {name: "main.g*", optional: true}, {name: main.h, optional: false}]
)"));
  ASSERT_EQ(c.functions.size(), 3u);
  EXPECT_FALSE(c.functions[0].optional);
  EXPECT_TRUE(c.functions[1].optional);
  EXPECT_FALSE(c.functions[2].optional);
  EXPECT_EQ(c.service->ready_tcp, "127.0.0.1:{port}");

  auto e = error_of("binary: x\nworkload: y\nfunctions: [{name: a, optional: maybe}]\n");
  EXPECT_NE(e.find("a.optional"), std::string::npos) << e;
  EXPECT_NE(e.find("true or"), std::string::npos) << e;
  e = error_of(
      "binary: x\nservice: {command: \"s -p {port}\", ready_tcp: \"127.0.0.1:8080\", load: l}\nfunctions: [a]\n");
  EXPECT_NE(e.find("service.ready_tcp"), std::string::npos) << e;
  EXPECT_NE(e.find("{port}"), std::string::npos) << e;
}

TEST(Config, ErrorsNameTheKeyLineAndFix) {
  auto e = error_of("binary: x\nworkload: y\nfunctions: [a]\nthreshhold: 5%\n");
  EXPECT_NE(e.find("'threshhold'"), std::string::npos) << e;
  EXPECT_NE(e.find(":4"), std::string::npos) << e;
  EXPECT_NE(e.find("threshold"), std::string::npos) << e;

  e = error_of("binary: x\nworkload: y\nfunctions: [a]\npairing: always\n");
  EXPECT_NE(e.find("pairing"), std::string::npos) << e;
  EXPECT_NE(e.find("use auto"), std::string::npos) << e;

  e = error_of("workload: y\nfunctions: [a]\n");
  EXPECT_NE(e.find("'binary'"), std::string::npos) << e;
  EXPECT_NE(e.find("fix:"), std::string::npos) << e;

  e = error_of("binary: x\nfunctions: [a]\n");
  EXPECT_NE(e.find("workload"), std::string::npos) << e;

  e = error_of("binary: x\nworkload: y\nservice: {command: a, load: b}\nfunctions: [a]\n");
  EXPECT_NE(e.find("both"), std::string::npos) << e;

  e = error_of("binary: x\nworkload: y\nfunctions: []\n");
  EXPECT_NE(e.find("at least one function"), std::string::npos) << e;

  e = error_of("binary: x\nworkload: y\nfunctions: [a]\ntimeout: 5 parsecs\n");
  EXPECT_NE(e.find("unit"), std::string::npos) << e;

  e = error_of("binary: x\nworkload: y\nfunctions: [a]\nquantiles: [p42]\n");
  EXPECT_NE(e.find("p42"), std::string::npos) << e;

  e = error_of("binary: x\nworkload: y\nfunctions: [a]\nruns: 0\n");
  EXPECT_NE(e.find("'runs'"), std::string::npos) << e;

  e = error_of("binary: x\nworkload: y\nfunctions: [a]\nruns: 10\nmax_runs: 3\n");
  EXPECT_NE(e.find("max_runs"), std::string::npos) << e;

  e = error_of("binary: [unclosed\n");
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;

  // 100% or more: refused when read, not by gate ab after measuring (the improvement band would be
  // 100% or more); the message says why (it said "must be above 0" for 1000%).
  for (const char* t : {"1000%", "100%", "1.5"}) {
    e = error_of(std::string("binary: x\nworkload: y\nfunctions: [a]\nthreshold: ") + t + "\n");
    EXPECT_NE(e.find("below 100%"), std::string::npos) << t << ": " << e;
    EXPECT_NE(e.find("nothing gets 100% faster"), std::string::npos) << e;
  }
  EXPECT_EQ(error_of("binary: x\nworkload: y\nfunctions: [a]\nthreshold: 99%\n"), "");
}

// yaml-cpp conversion errors used to escape as an internal error (exit 3) without a line.
TEST(Config, WrongTypesAreConfigErrorsWithTheLine) {
  std::string e = error_of("binary: x\nworkload: y\nfunctions: [a]\nfail_on_calls_change: maybe\n");
  EXPECT_NE(e.find("c.yaml:4: 'fail_on_calls_change': must be true or false, got 'maybe'"), std::string::npos) << e;
  e = error_of("binary: x\nworkload: y\nfunctions: [a]\nfail_on_insufficient_data: [1]\n");
  EXPECT_NE(e.find("c.yaml:4: 'fail_on_insufficient_data'"), std::string::npos) << e;
  e = error_of("binary: x\nworkload: y\nfunctions: [a]\n[1, 2]: z\n");
  EXPECT_NE(e.find("c.yaml:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("is not a plain key"), std::string::npos) << e;
  e = error_of("binary: x\nworkload: y\nfunctions: [a]\nquantiles: p50\n");
  EXPECT_NE(e.find("c.yaml:4: 'quantiles': must be a list"), std::string::npos) << e;
}

TEST(Config, ParsedFromTextNamesItsLabel) {
  try {
    parse_config("binary: x\nworkload: y\nfunctions: [a]\nruns: many\n", "/repo/gate.yaml", "main:gate.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("main:gate.yaml:4: 'runs'", 0), 0u) << e.what();
  }
  const Config c = parse_config("binary: bin/x\nworkload: y\nfunctions: [a]\n", "/repo/gate.yaml");
  EXPECT_EQ(c.binary, "/repo/bin/x");
  EXPECT_EQ(c.name, "gate");
}

// exclude_preemption: true, false, auto (= absent); the command line wins over the config, the
// config over the command's default (gate check passes its baseline's).
TEST(Config, ExcludePreemptionIsAChoiceOrTheCommandsDefault) {
  auto parse = [](const std::string& line) {
    return parse_config("binary: x\nworkload: y\nfunctions: [a]\n" + line, "/repo/gate.yaml");
  };
  EXPECT_EQ(parse("").exclude_preemption, std::nullopt);
  EXPECT_EQ(parse("exclude_preemption: auto\n").exclude_preemption, std::nullopt);
  EXPECT_EQ(parse("exclude_preemption: false\n").exclude_preemption, std::optional<bool>(false));
  EXPECT_EQ(parse("exclude_preemption: true\n").exclude_preemption, std::optional<bool>(true));
  try {
    parse("exclude_preemption: sometimes\n");
    FAIL();
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("'exclude_preemption'"), std::string::npos) << w;
    EXPECT_NE(w.find("must be true, false or auto, got 'sometimes'"), std::string::npos) << w;
  }
  const Config unset = parse(""), off = parse("exclude_preemption: false\n");
  EXPECT_EQ(exclude_preemption(unset, std::nullopt, true), true);    // the command's default
  EXPECT_EQ(exclude_preemption(unset, std::nullopt, false), false);
  EXPECT_EQ(exclude_preemption(off, std::nullopt, true), false);     // the config over the default
  EXPECT_EQ(exclude_preemption(off, std::optional<bool>(true), false), true);  // the flag over both
  EXPECT_EQ(exclude_preemption(parse("exclude_preemption: true\n"), std::optional<bool>(false), true), false);
}

// Issue 34: suspects fail the build when asked, measuring goes past max_runs for them up to
// suspect_max_runs (default twice max_runs when measuring adaptively), and the family is a word.
TEST(Config, SuspectKeysAndTheirDefaults) {
  auto parse = [](const std::string& lines) {
    return parse_config("binary: x\nworkload: y\nfunctions: [a]\n" + lines, "/repo/gate.yaml");
  };
  EXPECT_EQ(parse("").fail_on_suspect, std::nullopt);
  EXPECT_EQ(parse("fail_on_suspect: true\n").fail_on_suspect, std::optional<bool>(true));
  EXPECT_EQ(parse("fail_on_suspect: false\n").fail_on_suspect, std::optional<bool>(false));
  EXPECT_EQ(parse("").family, "holm");
  EXPECT_EQ(parse("family: fdr\n").family, "fdr");
  EXPECT_EQ(parse("family: p50-first\n").family, "p50-first");

  const Config adaptive = parse("runs: 5\nmax_runs: 10\n");
  EXPECT_EQ(suspect_max_runs(adaptive, 5, 10), 20);
  EXPECT_EQ(suspect_max_runs(adaptive, 5, 12), 24);  // --max-runs 12 on the command line
  const Config fixed = parse("runs: 7\n");
  EXPECT_EQ(suspect_max_runs(fixed, 7, 0), 7);        // a fixed number of runs stays fixed
  const Config set = parse("runs: 5\nmax_runs: 10\nsuspect_max_runs: 30\n");
  EXPECT_EQ(set.suspect_max_runs, 30);
  EXPECT_EQ(suspect_max_runs(set, 5, 10), 30);
  EXPECT_EQ(suspect_max_runs(set, 5, 40), 40);       // never below max_runs

  auto e = error_of("binary: x\nworkload: y\nfunctions: [a]\nruns: 5\nmax_runs: 10\nsuspect_max_runs: 8\n");
  EXPECT_NE(e.find("'suspect_max_runs'"), std::string::npos) << e;
  EXPECT_NE(e.find("below max_runs (10)"), std::string::npos) << e;
  EXPECT_NE(e.find("at least 10"), std::string::npos) << e;
  e = error_of("binary: x\nworkload: y\nfunctions: [a]\nfamily: holmes\n");
  EXPECT_NE(e.find("'family'"), std::string::npos) << e;
  EXPECT_NE(e.find("holm (the default), p50-first, fdr"), std::string::npos) << e;
  e = error_of("binary: x\nworkload: y\nfunctions: [a]\nfail_on_suspect: maybe\n");
  EXPECT_NE(e.find("fail_on_suspect"), std::string::npos) << e;
}

TEST(Config, MissingFileSaysHowToFixIt) {
  try {
    load_config("/nonexistent/gate.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/gate.yaml"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("fix:"), std::string::npos);
  }
}

// profile: {hz: N} turns sampled CPU profiles on (gate/profile); absent: off; {} the default rate.
TEST(Config, ProfileHz) {
  auto parse = [](const std::string& line) {
    return parse_config("binary: x\nworkload: y\nfunctions: [a]\n" + line, "/repo/gate.yaml");
  };
  EXPECT_EQ(parse("").profile_hz, 0);
  EXPECT_EQ(parse("profile: {hz: 997}\n").profile_hz, 997);
  EXPECT_EQ(parse("profile: {}\n").profile_hz, 199);
  for (const std::string bad : {"profile: {hz: 0}\n", "profile: {rate: 99}\n", "profile: 99\n"}) {
    try {
      parse(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("profile"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gate::runner
