// The sampled instrument on functions whose CPU time is in the standard library's assembly (issue 54
// item 8), as root, through `gate run` on tests/go/asmcpu built by the oldest (1.19) and the newest
// installed Go: main.Encode (crypto/sha256: Go 1.19's block uses BP as a data register) and
// main.Sum512 (crypto/sha512's blockAVX2 does so up to the newest Go) hash payloads of 0.5-32 KiB.
// Their cpu/call from samples must agree within 10% with their own CPU time, read by the workload's
// thread CPU clock around the same calls of an unprobed twin, batch by batch in the same execution
// (this VM's speed swings ~1.4x on a 0.1-1 s timescale: measured apart, the two would differ by
// that). And a head whose large payloads (16 KiB and more) do 1.5x the work must read the ratio of
// the mean CPU per call that the twin's clock reads (~1.4x: issue 54 read 47.88x).
//
// Sized from what it measures where it runs: a bare run of the binary times the twins first, and
// the executions are made long enough that each function counts >= kSamples samples over kRuns
// runs, at 9973 Hz (twice the default rate, for half the test's time: the sampler's interrupts land in
// the twin's clock as in the samples, so its cost is in both). The accuracy check pools the base's runs and the head's: it asserts that 3
// Poisson sd of the count leave room inside 10% and that 3 standard errors of the per-run ratios
// (sampling, the machine, everything) fit inside it, so that a pass is not luck; while they do not,
// it runs another gate run a side and pools it in (up to kMorePairs), as its count was sized. The slowdown's
// tolerance is the two counts' Poisson error at 4 sd (10% at least), and must be under half the
// change, so that it tells the change from none (and from issue 54's 47.88x).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/numbers.hpp"
#include "profile/profile_test_support.hpp"
#include "results/result.hpp"
#include "support/gate_cli.hpp"

namespace gate::profile {
namespace {

namespace fs = std::filesystem;
using gate::testing::GoToolchain;

#define REQUIRE_ROOT() \
  if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: NOT ROOT: the sampled instrument's tests need root (CI runs them as root)"

constexpr int kRuns = 3;
constexpr double kHz = 9973;         // sampling.hz: a prime (the default is 4999)
constexpr double kSamples = 1100;    // per function over a side's runs (base and head: 2,200+ for accuracy)
constexpr double kTolerance = 0.10;  // the issue's: cpu/call within 10% of the function's own CPU time
constexpr int kMorePairs = 3;        // gate runs a side added while the runs scatter (below)
constexpr int kPer = 16;             // calls per payload size per round (asmcpu -per)
constexpr int kSizes = 7;            // 512 B .. 32 KiB
const char* const kFunctions[] = {"main.Encode", "main.Sum512"};

struct FunctionReading {
  double gate_ns = 0, twin_ns = 0;  // per call, over the runs
  uint64_t samples = 0, lost = 0;
  std::vector<double> run_ratios;   // gate / twin, per run
  // The twin's CPU per call on the large payloads over that on the others, in the same batches of
  // the same run (so the machine's speed cancels), per run: what the head's knob multiplies by 1.5.
  // Their median: one run whose large batches met a slow spell cannot move it (a clean-clone run of
  // 2026-12-02 read Sum512's knob 1.062x from sums over 18 runs with a 25.6% scatter on the first
  // pair, where Encode's in the same runs read 1.523x).
  std::vector<double> large_over_small_runs;
  double large_over_small() const { return large_over_small_runs.empty() ? NAN : median(large_over_small_runs); }
  double large_cpu_ns = 0, cpu_ns = 0;  // the twin's, over the runs: the large payloads' share
  // The mean's ratio if the large payloads alone did 1.5x the work, from this side's own shares.
  double knob_ratio() const { return 1 + 0.5 * large_cpu_ns / cpu_ns; }
};

struct Reading {
  std::map<std::string, FunctionReading> fns;
  SamplerCounts sampler;
  double seen_s = 0, cpu_s = 0;
  std::string table;
  int pooled = 1;  // gate runs of kRuns runs each behind the figures
};

// Another gate run of the same side pooled in: the per-call figures are means over kRuns runs, so
// they average, one gate run weighing as much as another; counts and the twin's sums add up.
void pool(Reading& into, const Reading& more) {
  const double k = into.pooled;
  for (auto& [f, x] : into.fns) {
    const auto it = more.fns.find(f);
    if (it == more.fns.end()) continue;
    const FunctionReading& y = it->second;
    x.gate_ns = (x.gate_ns * k + y.gate_ns) / (k + 1);
    x.twin_ns = (x.twin_ns * k + y.twin_ns) / (k + 1);
    x.samples += y.samples;
    x.lost += y.lost;
    x.run_ratios.insert(x.run_ratios.end(), y.run_ratios.begin(), y.run_ratios.end());
    x.large_over_small_runs.insert(x.large_over_small_runs.end(), y.large_over_small_runs.begin(),
                                   y.large_over_small_runs.end());
    x.large_cpu_ns += y.large_cpu_ns;
    x.cpu_ns += y.cpu_ns;
  }
  into.sampler += more.sampler;
  into.seen_s += more.seen_s;
  into.cpu_s += more.cpu_s;
  into.pooled += 1;
}

nlohmann::json read_lines(const std::string& path) {
  nlohmann::json lines = nlohmann::json::array();
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// The twins' CPU time per call in bare runs (no gate): what sizes the executions. The least of three
// (the machine's fast phase): sized by a slow phase, the executions would count too few samples.
std::map<std::string, double> bare_twins(const std::string& bin, const std::string& dir) {
  const std::string out = dir + "/bare.jsonl";
  fs::remove(out);
  for (int i = 0; i < 3; ++i) gate::testing::run_capture(bin + " -funcs Encode,Sum512 -rounds 3 -self-out " + out);
  std::map<std::string, double> ns;
  for (const auto& line : read_lines(out))
    for (const char* f : kFunctions) {
      const double x = line[f]["cpu_ns"].get<double>() / line[f]["calls"].get<double>();
      ns[f] = ns.count(f) ? std::min(ns[f], x) : x;
    }
  return ns;
}

Reading gate_run(const std::string& bin, int rounds, const std::string& slow, const std::string& dir) {
  const std::string self = dir + "/self-" + slow + ".jsonl", result = dir + "/result-" + slow + ".json";
  fs::remove(self);
  {
    std::ofstream yaml(dir + "/gate.yaml");
    yaml << "binary: " << bin << "\nworkload: $GATE_BINARY -funcs Encode,Sum512 -rounds " << rounds << " -per " << kPer
         << " -slow-large " << slow << " -self-out " << self << "\nruns: " << kRuns
         << "\ntimeout: 600s\nenv: {GOMAXPROCS: \"2\"}\nfunctions: [main.Encode, main.Sum512]\nmeasure: samples\n"
         << "sampling: {hz: " << kHz << "}\n";
  }
  const auto r = gate::testing::run_gate({"run", "-c", dir + "/gate.yaml", "--no-build", "-o", result});
  EXPECT_EQ(r.code, 0) << r.err;
  Reading out;
  out.table = r.out;
  const ResultFile res = load_result_file(result);
  const auto twins = read_lines(self);
  EXPECT_EQ(twins.size(), res.runs.size()) << "one line of the twins' clock per execution";
  for (size_t i = 0; i < res.runs.size() && i < twins.size(); ++i) {
    const RunResult& run = res.runs[i];
    EXPECT_GT(run.sample_period_ns, 0u) << "run " << run.index << " was not sampled";
    out.sampler += run.sampler;
    out.seen_s += static_cast<double>(run.sampler.samples * run.sample_period_ns) / 1e9;
    out.cpu_s += run.cpu_s;
    for (const char* f : kFunctions) {
      const FunctionRun* fr = run.find(f);
      if (!fr || fr->calls == 0) continue;
      auto& x = out.fns[f];
      const double gate_ns = static_cast<double>(fr->self_samples * run.sample_period_ns);
      const double twin_ns = twins[i][f]["cpu_ns"].get<double>();
      EXPECT_EQ(twins[i][f]["calls"].get<uint64_t>(), fr->calls) << f << ": the twin makes the same calls";
      x.gate_ns += gate_ns / static_cast<double>(kRuns * fr->calls);
      x.twin_ns += twin_ns / static_cast<double>(kRuns * fr->calls);
      x.samples += fr->self_samples;
      x.lost += fr->lost_samples;
      x.run_ratios.push_back(gate_ns / twin_ns);
      const auto& t = twins[i][f];
      const double large_calls = t["large_calls"].get<double>(), large_cpu = t["large_cpu_ns"].get<double>();
      x.large_over_small_runs.push_back((large_cpu / large_calls) /
                                        ((twin_ns - large_cpu) / (t["calls"].get<double>() - large_calls)));
      x.large_cpu_ns += large_cpu;
      x.cpu_ns += twin_ns;
    }
  }
  return out;
}

// The standard error of the mean of the per-run ratios, relative to their mean.
double relative_se(const std::vector<double>& v) {
  if (v.size() < 2) return INFINITY;
  double m = 0, ss = 0;
  for (double x : v) m += x / static_cast<double>(v.size());
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1) / static_cast<double>(v.size())) / m;
}

class AsmCpu : public ::testing::TestWithParam<GoToolchain> {};

TEST_P(AsmCpu, CpuPerCallAgreesWithItsOwnClockAndA15xSlowdownReadsItsTrueRatio) {
  REQUIRE_ROOT();
  const std::string bin = gate::testing::build_asmcpu(GetParam());
  const std::string dir = (fs::temp_directory_path() / ("gate_asmcpu_" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  // Rounds for kSamples of the cheaper function at kHz over kRuns runs.
  const auto bare = bare_twins(bin, dir);
  double cheapest = INFINITY;
  for (const auto& [f, ns] : bare) cheapest = std::min(cheapest, ns);
  ASSERT_TRUE(std::isfinite(cheapest) && cheapest > 0);
  const double per_round_s = cheapest * kSizes * kPer * 1e-9;
  const int rounds = static_cast<int>(std::ceil(kSamples / (kRuns * kHz * per_round_s)));
  std::printf("GATE_FIGURE go%s bare twins: Encode %.2fus, Sum512 %.2fus a call; %d rounds an execution\n",
              GetParam().version.c_str(), bare.at("main.Encode") / 1e3, bare.at("main.Sum512") / 1e3, rounds);

  Reading base = gate_run(bin, rounds, "1", dir), head = gate_run(bin, rounds, "1.5", dir);
  std::printf("%s", base.table.c_str());
  // Sized from the runs' own scatter as well: while 3 standard errors of a function's per-run ratios
  // exceed the tolerance (the machine's speed swings reach into a run's ratio through its sampling:
  // one clean-clone run read 3.6% over 6 runs, 3 se 10.8%), another gate run a side is pooled in,
  // up to kMorePairs (se falls as 1/sqrt(runs)); past that the check below fails, saying so.
  auto worst_se = [&] {
    double worst = 0;
    for (const char* f : kFunctions) {
      std::vector<double> v = base.fns[f].run_ratios;
      v.insert(v.end(), head.fns[f].run_ratios.begin(), head.fns[f].run_ratios.end());
      worst = std::max(worst, relative_se(v));
    }
    return worst;
  };
  for (int more = 1; more <= kMorePairs && 3 * worst_se() > kTolerance; ++more) {
    std::printf("GATE_FIGURE go%s 3 se of the per-run ratios %.1f%% > %.0f%%: gate run pair %d of at most %d more\n",
                GetParam().version.c_str(), 300 * worst_se(), 100 * kTolerance, more, kMorePairs);
    pool(base, gate_run(bin, rounds, "1", dir));
    pool(head, gate_run(bin, rounds, "1.5", dir));
  }
  for (const Reading* r : {&base, &head}) {
    // The sampler saw the workload's CPU time (its samples x period against wait4's rusage).
    EXPECT_NEAR(r->seen_s / r->cpu_s, 1.0, 0.1) << "samples x period against the workload's own CPU time";
    EXPECT_LE(r->sampler.not_to_root, r->sampler.samples / 100) << "stacks not walked to their root";
  }
  for (const char* f : kFunctions) {
    const FunctionReading& b = base.fns.at(f);
    const FunctionReading& h = head.fns.at(f);
    // Accuracy, over the base's runs and the head's (each run's cpu/call against its own clock).
    std::vector<double> ratios = b.run_ratios;
    ratios.insert(ratios.end(), h.run_ratios.begin(), h.run_ratios.end());
    const double n = static_cast<double>(b.samples + h.samples);
    const double ratio = (b.gate_ns + h.gate_ns) / (b.twin_ns + h.twin_ns);
    const double se = relative_se(ratios);
    std::printf("GATE_FIGURE go%s %s cpu/call %.2fus, its own clock %.2fus: %.3f; head %.2fus, %.2fus: %.3f "
                "(%lu samples, se %.1f%% over %zu runs, lost %lu)\n",
                GetParam().version.c_str(), f, b.gate_ns / 1e3, b.twin_ns / 1e3, b.gate_ns / b.twin_ns, h.gate_ns / 1e3,
                h.twin_ns / 1e3, h.gate_ns / h.twin_ns, static_cast<unsigned long>(b.samples + h.samples), 100 * se,
                ratios.size(), static_cast<unsigned long>(b.lost + h.lost));
    // Enough samples that counting alone (Poisson, the conservative bound: the timer is regular)
    // leaves room for the machine inside 10% at 3 sd; and the runs' own scatter agrees.
    EXPECT_LE(3 / std::sqrt(n), 0.07) << f << ": too few samples (" << n << ") to decide at 10%";
    EXPECT_LE(3 * se, kTolerance) << f << ": the runs scatter too much for a 10% check to mean anything";
    EXPECT_NEAR(ratio, 1.0, kTolerance) << f << " cpu/call " << b.gate_ns << " ns against its own " << b.twin_ns << " ns";
    // The slowdown: gate's ratio of cpu/call against the twin's, the true mean ratio.
    const double truth = h.twin_ns / b.twin_ns, read = h.gate_ns / b.gate_ns;
    // Two counts' Poisson error at 4 sd, 10% at least; it must tell the change from none.
    const double tol = std::max(kTolerance, 4 * std::sqrt(1.0 / static_cast<double>(b.samples) + 1.0 / static_cast<double>(h.samples)));
    std::printf("GATE_FIGURE go%s %s large payloads 1.5x (their own clock: %.3fx, the mean's %.3fx): cpu/call %.3fx, "
                "its own clock %.3fx (within %.1f%%)\n",
                GetParam().version.c_str(), f, h.large_over_small() / b.large_over_small(), b.knob_ratio(), read, truth,
                100 * tol);
    // The knob did what it says: the large payloads' CPU per call, relative to the others' in the
    // same runs, 1.5x (±10%) in the head. (truth itself is two runs apart: the machine's speed
    // moves it, and gate's reading with it.)
    auto runs_text = [](const std::vector<double>& v) {
      std::string t;
      for (double x : v) t += (t.empty() ? "" : " ") + std::to_string(x).substr(0, 5);
      return t;
    };
    EXPECT_NEAR(h.large_over_small() / b.large_over_small(), 1.5, 0.15)
        << f << ": the head's large payloads; large/small per run, base: " << runs_text(b.large_over_small_runs)
        << "; head: " << runs_text(h.large_over_small_runs);
    // What the knob makes of the mean, from the base's own shares (truth moves with the machine's
    // speed between the two gate runs, by 10-15% here: gate's reading moves with it).
    const double expected = b.knob_ratio();
    EXPECT_LE(tol, (expected - 1) / 2) << f << ": a tolerance of " << tol << " cannot tell " << expected << "x from no change";
    EXPECT_NEAR(read / truth, 1.0, tol) << f << " read " << read << "x where its own clock reads " << truth << "x";
  }
  fs::remove_all(dir);
}

// The oldest installed toolchain (1.19 on this project's machines) and the newest.
std::vector<GoToolchain> oldest_and_newest() {
  auto all = gate::testing::go_toolchains();
  if (all.size() > 2) all = {all.front(), all.back()};
  return all;
}

INSTANTIATE_TEST_SUITE_P(Toolchains, AsmCpu, ::testing::ValuesIn(oldest_and_newest()), [](const auto& info) {
  std::string n = "go" + info.param.version;
  for (char& c : n) c = c == '.' ? '_' : c;
  return n;
});

}  // namespace
}  // namespace gate::profile
