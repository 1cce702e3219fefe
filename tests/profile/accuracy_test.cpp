// CPU-profile accuracy as root against tests/profile/target built by the default toolchain: known
// CPU shares, an inlined callee by name, a frameless leaf's 3:1 callers, go tool pprof reading
// the files, and agreement with Go's own runtime/pprof on the same run. Tolerances are the issue's
// (±2 points on shares, ±3 on the split); each test also checks it took enough samples that
// sampling noise alone (binomial, 4 standard deviations) stays inside its tolerance, so a pass is
// not luck and a real error of that size fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "elf/elf_file.hpp"
#include "profile/pprof.hpp"
#include "profile/profile_diff.hpp"
#include "profile/profile_test_support.hpp"
#include "profile/sampler.hpp"
#include "profile/symbolize.hpp"
#include "profile/unwind.hpp"
#include "runner/process.hpp"
#include "support/gate_cli.hpp"

namespace gate::profile {
namespace {

namespace fs = std::filesystem;

#define REQUIRE_ROOT() \
  if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: NOT ROOT: CPU profile tests need root (CI runs them as root)"

// 997 Hz (a prime): 4 samples per ms of CPU at 4 sigma need ~8,400 samples for ±2 points at 30%.
constexpr int kHz = 997;

struct ProfiledRun {
  Profile profile;
  std::string binary, dir;
  long rounds = 0;
};

const std::string& target() {
  static const std::string bin = gate::testing::build_profiletarget(gate::testing::default_go());
  return bin;
}

const analysis::PcLines& lines() {
  static const auto l = analysis::PcLines::load(elf::ElfFile::open(target()));
  return l;
}

// The sampler for the target's code at hz.
SamplerOptions sampler_options(int hz) {
  const auto& pcl = lines();
  SamplerOptions o;
  o.hz = hz;
  static const auto table = std::make_shared<const UnwindTable>(unwind_table(pcl));
  o.unwind = {{0, table}, {1, table}};
  return o;
}

ProfiledRun profiled_run(const std::string& args, int hz = kHz) {
  Sampler sampler(sampler_options(hz));
  ProfiledRun r;
  r.binary = target();
  r.dir = (fs::temp_directory_path() / ("gate_profile_" + std::to_string(getpid()))).string();
  fs::create_directories(r.dir);
  runner::SpawnOptions so;
  so.command = r.binary + " " + args;
  so.stdout_path = r.dir + "/stdout";
  so.stderr_path = r.dir + "/stderr";
  so.env["GOMAXPROCS"] = "2";
  auto child = runner::Child::spawn(so, [&](pid_t pid) { sampler.track(pid, 0); });
  EXPECT_EQ(child.wait(600, nullptr), runner::Child::WaitEnd::kExited);
  EXPECT_EQ(child.status(), 0) << runner::file_tail(so.stderr_path);
  r.profile = symbolize(sampler.collect(0), lines(), read_kallsyms());
  std::smatch m;
  const std::string out = runner::file_tail(so.stdout_path);
  if (std::regex_search(out, m, std::regex("GATE_ROUNDS (\\d+)"))) r.rounds = std::stol(m[1]);
  return r;
}

// Samples whose stack has `function` on it (any frame, inlined ones included).
uint64_t samples_with(const Profile& p, const std::string& function) {
  uint64_t n = 0;
  for (const auto& s : p.samples) {
    bool has = false;
    for (uint32_t id : s.locations)
      for (const auto& fr : p.locations[id].frames) has = has || fr.function == function;
    if (has) n += s.count;
  }
  return n;
}

uint64_t symbolised(const Profile& p) {
  uint64_t n = 0;
  for (const auto& s : p.samples) n += s.count;
  return n;
}

// 4 binomial standard deviations of a share p measured from n samples, in points.
double four_sigma_points(double p, uint64_t n) { return 400 * std::sqrt(p * (1 - p) / static_cast<double>(n)); }

// Sampler::pause stops the per-CPU events (gate pauses them around clean executions, whose
// benchmark figures must be the bare binary's): a second of CPU burnt while paused counts no
// sample; the same burnt after restarting counts its ~997 (the floor, 500, is 15 sd below).
TEST(ProfileSampler, PausedCountsNoSampleAndRestartedCountsThem) {
  REQUIRE_ROOT();
  Sampler sampler(sampler_options(kHz));
  const std::string dir = (fs::temp_directory_path() / ("gate_pause_" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  auto burn = [&](uint32_t side) {
    runner::SpawnOptions so;
    so.command = target() + " -mode shares -cpuseconds 1";
    so.stdout_path = dir + "/stdout";
    so.stderr_path = dir + "/stderr";
    auto child = runner::Child::spawn(so, [&](pid_t pid) { sampler.track(pid, side); });
    EXPECT_EQ(child.wait(120, nullptr), runner::Child::WaitEnd::kExited);
    EXPECT_EQ(child.status(), 0) << runner::file_tail(so.stderr_path);
    return sampler.collect(side).samples;
  };
  sampler.pause(true);
  const uint64_t paused = burn(0);
  sampler.pause(false);
  const uint64_t running = burn(1);
  fs::remove_all(dir);
  EXPECT_EQ(paused, 0u) << "samples counted while the sampler was paused";
  EXPECT_GE(running, 500u) << "too few samples of a CPU second at " << kHz << " Hz after restarting";
  std::printf("GATE_FIGURE paused %lu samples, restarted %lu samples\n", static_cast<unsigned long>(paused),
              static_cast<unsigned long>(running));
}

TEST(ProfileAccuracy, SharesOf30And10And2PercentReadWithin2Points) {
  REQUIRE_ROOT();
  const ProfiledRun r = profiled_run("-mode shares -cpuseconds 10");
  const uint64_t n = symbolised(r.profile);
  ASSERT_GE(four_sigma_points(0.3, n), 0);
  EXPECT_LE(four_sigma_points(0.3, n), 2.0) << "too few samples (" << n << ") for ±2 points at 4 sigma";
  EXPECT_LE(r.profile.lost, r.profile.total / 100) << "stacks the kernel could not take";
  for (auto [fn, want] : {std::pair{"main.burn30", 30.0}, {"main.burn10", 10.0}, {"main.burn2", 2.0}, {"main.rest", 58.0}}) {
    const double got = 100.0 * static_cast<double>(samples_with(r.profile, fn)) / static_cast<double>(n);
    EXPECT_NEAR(got, want, 2.0) << fn << " of " << n << " samples";
    std::printf("GATE_FIGURE share %s %.2f%% (want %.0f%%) of %lu samples\n", fn, got, want, static_cast<unsigned long>(n));
  }
  // The inlined loop is named: mix, innermost, inside each burner.
  EXPECT_GT(samples_with(r.profile, "main.mix"), n * 9 / 10);
  bool inlined_into_burn30 = false;
  for (const auto& loc : r.profile.locations)
    if (loc.frames.size() >= 2 && loc.frames[0].function == "main.mix" && loc.frames[0].inlined &&
        loc.frames[1].function == "main.burn30")
      inlined_into_burn30 = true;
  EXPECT_TRUE(inlined_into_burn30);
}

TEST(ProfileAccuracy, FramelessLeafSplits75To25BetweenItsCallers) {
  REQUIRE_ROOT();
  const ProfiledRun r = profiled_run("-mode leaf -cpuseconds 6");
  const uint64_t leaf = samples_with(r.profile, "main.leaf");
  ASSERT_GT(leaf, 0u);
  EXPECT_LE(four_sigma_points(0.75, leaf), 3.0) << "too few samples (" << leaf << ") for ±3 points at 4 sigma";
  const double three = 100.0 * static_cast<double>(samples_with(r.profile, "main.callerThree")) / static_cast<double>(leaf);
  const double one = 100.0 * static_cast<double>(samples_with(r.profile, "main.callerOne")) / static_cast<double>(leaf);
  EXPECT_NEAR(three, 75.0, 3.0) << "of " << leaf << " leaf samples; frame pointer differed: " << r.profile.fp_differed;
  EXPECT_NEAR(one, 25.0, 3.0);
  // The leaf keeps its caller's frame pointer: a frame-pointer walk skips the caller, the table's does not.
  EXPECT_GT(r.profile.fp_differed, leaf * 9 / 10) << "the FP walk skips the leaf's caller: the table's unwind must act";
  std::printf("GATE_FIGURE leaf split callerThree %.2f%% callerOne %.2f%% of %lu leaf samples (%lu the frame pointer walked wrong)\n",
              three, one, static_cast<unsigned long>(leaf), static_cast<unsigned long>(r.profile.fp_differed));
}

// Base and head at once, as sides 0 and 1 of one sampler, each on one CPU (GOMAXPROCS=1): run
// concurrently, both meet the same machine state (this machine's speed swings ~1.4x over seconds,
// which a base-then-head pair would read as a change in every frame).
struct ProfiledPair {
  Profile base, head;
  long base_rounds = 0, head_rounds = 0;
};

ProfiledPair profiled_pair(const std::string& base_args, const std::string& head_args, int hz = kHz) {
  Sampler sampler(sampler_options(hz));
  const std::string dir = (fs::temp_directory_path() / ("gate_profile_pair_" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  auto spawn = [&](const std::string& args, uint32_t side) {
    runner::SpawnOptions so;
    so.command = target() + " " + args;
    so.stdout_path = dir + "/stdout" + std::to_string(side);
    so.stderr_path = dir + "/stderr" + std::to_string(side);
    so.env["GOMAXPROCS"] = "1";
    return runner::Child::spawn(so, [&sampler, side](pid_t pid) { sampler.track(pid, side); });
  };
  auto base = spawn(base_args, 0);
  auto head = spawn(head_args, 1);
  ProfiledPair r;
  long* rounds[] = {&r.base_rounds, &r.head_rounds};
  runner::Child* children[] = {&base, &head};
  for (uint32_t side = 0; side < 2; ++side) {
    EXPECT_EQ(children[side]->wait(600, nullptr), runner::Child::WaitEnd::kExited);
    EXPECT_EQ(children[side]->status(), 0);
    std::smatch m;
    const std::string out = runner::file_tail(dir + "/stdout" + std::to_string(side));
    if (std::regex_search(out, m, std::regex("GATE_ROUNDS (\\d+)"))) *rounds[side] = std::stol(m[1]);
  }
  r.base = symbolize(sampler.collect(0), lines(), read_kallsyms());
  r.head = symbolize(sampler.collect(1), lines(), read_kallsyms());
  fs::remove_all(dir);
  return r;
}

const FrameChange* frame_of(const SubtreeDiff& d, const std::string& frame) {
  for (const auto& f : d.frames)
    if (f.frame == frame) return &f;
  return nullptr;
}

// Issue 30, point 5: a head whose childB does twice its work reads childB +100% ±15% per call of
// parent, and no other frame beyond sampling noise. Per call: the two sides ran different numbers
// of rounds (each until 5 s of CPU), gate's exact counts stand in for the rounds.
TEST(ProfileDiffAccuracy, DoubledChildReadsPlus100PercentPerCallAndNoOtherFrame) {
  REQUIRE_ROOT();
  // 18 CPU-seconds a side: ~6,000 and ~9,000 of childB's samples at 997 Hz, so that the change's
  // sampling sd (~3.4 points) puts +-15 points at 4.4 sd (5 seconds put it at 2.3 sd: +116% once in CI).
  const auto r = profiled_pair("-mode children -cpuseconds 18", "-mode children -cpuseconds 18 -double 2");
  ASSERT_GT(r.base_rounds, 0);
  ASSERT_GT(r.head_rounds, 0);
  const auto d = diff_subtree(r.base, r.head, "main.parent", static_cast<uint64_t>(r.base_rounds),
                              static_cast<uint64_t>(r.head_rounds));
  const FrameChange* b = frame_of(d, "main.childB");
  ASSERT_NE(b, nullptr) << describe(d);
  // ±15 points of the change (100 times the ratio's ±0.15) need 4 sigma of its sampling noise
  // inside them: the ratio's sd is the ratio (2) times its relative sd.
  const double rel_sd = std::sqrt(1.0 / static_cast<double>(b->base_samples) + 1.0 / static_cast<double>(b->head_samples));
  EXPECT_LE(4 * 100 * 2 * rel_sd, 15) << "too few samples: " << b->base_samples << " / " << b->head_samples;
  const double change = 100 * (b->head_ns_per_call / b->base_ns_per_call - 1);
  EXPECT_NEAR(change, 100, 15) << describe(d);
  EXPECT_TRUE(b->significant);
  for (const auto& f : d.frames) {
    if (f.frame != "main.childB") {
      EXPECT_FALSE(f.significant) << f.frame << " p=" << f.p_value << ": " << describe(d);
    }
  }
  std::printf("GATE_FIGURE doubled child: childB %+.1f%% per call (%lu -> %lu samples); lost %lu of %lu / %lu of %lu; %s\n",
              change, static_cast<unsigned long>(b->base_samples), static_cast<unsigned long>(b->head_samples),
              static_cast<unsigned long>(r.base.lost), static_cast<unsigned long>(r.base.total),
              static_cast<unsigned long>(r.head.lost), static_cast<unsigned long>(r.head.total), describe(d).c_str());
  for (const auto& f : d.frames)
    std::printf("GATE_FIGURE frame %s p=%.3g %+.1f%%\n", f.frame.c_str(), f.p_value,
                f.base_ns_per_call > 0 ? 100 * (f.head_ns_per_call / f.base_ns_per_call - 1) : 0.0);
}

// Base against base (the same program and arguments on both sides, at once): no frame is flagged.
// The test's level is a 5% false discovery rate over the frames; here every hypothesis is true,
// so any flagged frame is a false discovery.
TEST(ProfileDiffAccuracy, BaseAgainstBaseFlagsNoFrame) {
  REQUIRE_ROOT();
  const auto r = profiled_pair("-mode children -cpuseconds 3", "-mode children -cpuseconds 3");
  const auto d = diff_subtree(r.base, r.head, "main.parent", static_cast<uint64_t>(r.base_rounds),
                              static_cast<uint64_t>(r.head_rounds));
  ASSERT_GE(d.frames.size(), 3u) << describe(d);
  for (const auto& f : d.frames) {
    EXPECT_FALSE(f.significant) << f.frame << " p=" << f.p_value << ": " << describe(d);
    std::printf("GATE_FIGURE A/A %s %lu vs %lu samples, %+.1f%% per call, p=%.3g\n", f.frame.c_str(),
                static_cast<unsigned long>(f.base_samples), static_cast<unsigned long>(f.head_samples),
                f.base_ns_per_call > 0 ? 100 * (f.head_ns_per_call / f.base_ns_per_call - 1) : 0.0, f.p_value);
  }
}

// pprof -top -cum's cum% of a function (samples index), or -1 when absent.
double cum_percent(const std::string& top, const std::string& fn) {
  std::istringstream in(top);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string flat, flatp, sum, cum, cump, name;
    if (f >> flat >> flatp >> sum >> cum >> cump >> name && name == fn && cump.ends_with('%'))
      return std::stod(cump);
  }
  return -1;
}

TEST(ProfileAccuracy, GoToolPprofReadsTheFileAndComparesWithRuntimePprof) {
  REQUIRE_ROOT();
  const std::string dir = (fs::temp_directory_path() / ("gate_profile_go_" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  const ProfiledRun r = profiled_run("-mode shares -cpuseconds 10 -cpuprofile " + dir + "/go.pb.gz");
  write_pprof(dir + "/gate.pb.gz", r.profile, {r.binary, "", 0, 0});
  const std::string go = gate::testing::default_go().go;
  const std::string raw = gate::testing::run_capture(go + " tool pprof -raw " + dir + "/gate.pb.gz 2>&1");
  EXPECT_NE(raw.find("main.mix"), std::string::npos);
  auto top = [&](const std::string& file) {
    return gate::testing::run_capture(go + " tool pprof -top -cum -nodecount=100 -sample_index=samples " + file + " 2>&1");
  };
  const std::string ours = top(dir + "/gate.pb.gz"), theirs = top(dir + "/go.pb.gz");
  const uint64_t n = symbolised(r.profile);
  for (auto [fn, share] : {std::pair{"main.burn30", 0.30}, {"main.burn10", 0.10}, {"main.burn2", 0.02}}) {
    const double a = cum_percent(ours, fn), b = cum_percent(theirs, fn);
    ASSERT_GE(a, 0) << fn << " missing from pprof's reading of gate's file:\n" << ours;
    ASSERT_GE(b, 0) << fn << " missing from runtime/pprof's profile:\n" << theirs;
    // pprof reads back what gate counted (its cum% is rounded to 0.01), and that is the truth.
    const double counted = 100.0 * static_cast<double>(samples_with(r.profile, fn)) / static_cast<double>(n);
    EXPECT_NEAR(a, counted, 0.02) << fn;
    EXPECT_NEAR(a, 100 * share, 2.0) << fn;
    // runtime/pprof (100 Hz, ~1,000 samples here) is a reference, not the truth: here it read
    // burn30 at 23-28% across runs where the work is 30% (see docs/profile.md), more than its
    // binomial noise. Only a gross disagreement (another function named) fails.
    const double go_n = static_cast<double>(n) * 100 / kHz;
    const double bound = 400 * std::sqrt(share * (1 - share) * (1 / static_cast<double>(n) + 1 / go_n));
    EXPECT_NEAR(a, b, 10.0) << fn;
    std::printf("GATE_FIGURE agreement %s gate %.2f%% runtime/pprof %.2f%% (4-sigma sampling bound %.2f points)\n",
                fn, a, b, bound);
  }
  fs::remove_all(dir);
}

// The command end to end: `gate run --profile=HZ` follows the probed processes (the session's
// on_tracked hook), writes the file, and `go tool pprof` finds the burners in it.
TEST(ProfileCli, GateRunProfileWritesAPprofFileOfTheProbedRuns) {
  REQUIRE_ROOT();
  const std::string dir = (fs::temp_directory_path() / ("gate_profile_cli_" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  {
    std::ofstream yaml(dir + "/gate.yaml");
    yaml << "binary: " << target() << "\nworkload: " << target()
         << " -mode shares -cpuseconds 2\nruns: 2\nenv: {GOMAXPROCS: \"2\"}\nfunctions: [main.burn10]\n"
         // measure: probes, so that the profile is sampled at the --profile rate this test is sized
         // for (under auto, the default, the sampled instrument raises it to sampling.hz, 4999 Hz,
         // where burn30's share moved by up to 4.5 points in 1 run of 14 on this machine kind,
         // far beyond its binomial noise: the timer's phase against the workload's fixed rounds).
         << "measure: probes\n";
  }
  const auto r = gate::testing::run_gate(
      {"run", "-c", dir + "/gate.yaml", "--no-build", "--profile=499", "--profile-out", dir + "/cpu.pb.gz"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("CPU profile: "), std::string::npos) << r.err;
  const std::string go = gate::testing::default_go().go;
  const std::string top =
      gate::testing::run_capture(go + " tool pprof -top -cum -sample_index=samples " + dir + "/cpu.pb.gz 2>&1");
  // burn10 is probed: its probes' traps and single-steps show as [gate probe] (under burn10).
  const double probe = cum_percent(top, "[gate");  // pprof's -top prints the name's first word
  EXPECT_GT(probe, 0.0) << top;
  // 2 runs x 2 CPU-seconds at 499 Hz: ~2,000 samples; burn30 is 30% of the work that is not the
  // probes' (4 sigma: ±4.1 points).
  const double burn30 = 100 * cum_percent(top, "main.burn30") / (100 - probe);
  EXPECT_NEAR(burn30, 30.0, 4.1) << top;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gate::profile
