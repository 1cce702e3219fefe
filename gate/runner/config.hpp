// gate.yaml: what to build, which binary to probe, how to drive it (a command, or a service plus
// a load driver), how many runs, which functions, and the verdict settings. Strictly validated.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan/buckets.hpp"
#include "plan/native_plan.hpp"

namespace gate::runner {

struct FunctionSpec {
  std::string pattern;                       // exact Go symbol name or glob
  std::optional<double> threshold;           // per-function regression threshold (0.10 = 10%)
  std::map<std::string, double> quantile_thresholds;  // per quantile: {"p99": 0.2}
  // May have no calls: `gate record` otherwise refuses a baseline in which a function it declares
  // was never called (the baseline could not guard it). Applies to every function a glob matches.
  bool optional = false;
  // Latency by argument: also one series per bucket of this argument (exact names only).
  std::optional<plan::BucketBy> bucket_by;
  int line = 0;  // 1-based line of the entry, for errors that need the binary (bucket_by)
  // A native (C, C++) function: {native: GLOB} (library empty) or {library: L, symbol: GLOB}.
  // pattern is then the name results carry ("GLOB" or "GLOB@file name of L"), symbol the glob.
  bool native = false;
  std::string library;
  std::string symbol;
  // How its time is measured (issue 39): "auto", "probes" or "samples"; "" = the config's `measure`.
  std::string measure;
  // How its calls are counted: "auto", "exact" (entry and return probes) or "entry" (the entry probe
  // alone, counting calls; its time then comes from samples); "" = the config's `calls`.
  std::string calls;
};

// The sampled instrument's default rate per CPU (sampling: {hz: N}). A prime, so as not to beat in
// step with periodic work; docs/how-it-measures.md has its measured cost and sampling error.
inline constexpr int kDefaultSamplingHz = 4999;

// In command, ready_tcp and load, `{port}` stands for a free TCP port gate picks for each run.
inline constexpr const char* kPortPlaceholder = "{port}";
// In load (and command), `{url}` stands for http://<ready_tcp>, its {port} filled.
inline constexpr const char* kUrlPlaceholder = "{url}";

// A service's unit (runner/rounds.hpp): one start, warmup_rounds load rounds driven and not
// measured, then `rounds` measured load rounds. Defaults measured on the shop example
// (docs/how-it-measures.md#services).
inline constexpr int kDefaultServiceRounds = 3;
inline constexpr int kDefaultServiceWarmupRounds = 1;

struct ServiceSpec {
  std::string command;        // the service; probed, stopped when the load ends
  std::string ready_tcp;      // "host:port" that accepts connections once the service is up,
                              // held by the service's own processes (checked before the load)
  double ready_timeout_s = 30;
  std::string load;           // the load driver; not probed; its exit status decides the run
  std::string stop_signal = "SIGTERM";
  double stop_timeout_s = 10;
  int rounds = kDefaultServiceRounds;                // measured load rounds per start (a unit)
  int warmup_rounds = kDefaultServiceWarmupRounds;   // load rounds after each start, not measured
  // gate ab: "rounds" (both sides' services up at once on their own ports, the sides alternating
  // round by round), "units" (one side's whole unit, then the other's, in a seeded order), or
  // "auto" (rounds when ready_tcp uses {port}, else units). runner::service_alternation().
  std::string alternate = "auto";
};

struct Config {
  std::string path;  // the file, absolute
  std::string dir;   // its directory: commands run here, relative paths start here
  std::string name;
  std::string build;     // optional command run once before measuring
  std::string binary;    // absolute path of the Go binary to probe
  std::string workload;  // command run once per run (exclusive with service)
  std::optional<ServiceSpec> service;
  int runs = 5;
  int max_runs = 0;      // adaptive: while some verdict is inconclusive, run more up to this
  // Past max_runs, up to this, for a test that reads past its regression threshold and looks
  // decidable by then (0: the default, suspect_max_runs() below).
  int suspect_max_runs = 0;
  double timeout_s = 600;  // per run
  int warmup_runs = 0;  // runs made and discarded before measuring
  // A measured unit lasts at least this long: a shorter execution of the workload is repeated
  // within the unit (docs/units-and-layouts.md). Unset: gate ab and calibrate use
  // kDefaultMinUnitSeconds, run and record one execution a unit, check the baseline's.
  std::optional<double> min_unit_seconds;
  // Layout variants per side that ci/pre-merge.sh builds (-ldflags=-randlayout=SEED); 1: off.
  int layouts = 3;
  std::map<std::string, std::string> env;
  std::vector<FunctionSpec> functions;
  uint32_t max_in_flight = 0;  // 0 = the probe engine's default
  // Verdict settings (gate check/compare/ab).
  std::vector<std::string> quantiles = {"p50", "p99"};
  std::optional<double> threshold;  // default regression threshold (stats default when unset)
  std::map<std::string, double> quantile_thresholds;
  double calls_change = 0.5;     // |calls ratio - 1| above this is reported
  bool fail_on_calls_change = false;
  bool fail_on_insufficient = false;
  // The family of tests a verdict is corrected over (stats::parse_multiplicity): holm (default),
  // p50-first, fdr, bonferroni, none.
  std::string family = "holm";
  // A suspected regression (past its threshold by its own test, not after the family's
  // correction) fails the build. Unset: kFailOnSuspectByDefault.
  std::optional<bool> fail_on_suspect;
  bool speed_normalization = true;  // divide each run by its speed factor (stats/speed.hpp)
  // speed_normalization: fitted (the default) -- paired comparisons fit each function's power of
  // the factor (stats::paired_ratio's fit_elasticity); true: the factor itself (power 1).
  bool fit_speed_elasticity = true;
  // Time each call minus the time other processes had its thread's CPU inside it (probe engine
  // option). Unset ("auto" or absent): the command line's choice, else the command's default
  // (exclude_preemption() below).
  std::optional<bool> exclude_preemption;
  std::string pairing = "auto";     // "auto": pair gate ab's back-to-back runs; "off": never
  // "go": the workload's stdout holds `go test -bench` results, stored per run and compared like
  // function latencies; "none" (default): its stdout is not read.
  std::string benchmarks = "none";
  // benchmarks: go and no functions: a benchmarks-only gate: every execution runs with no probe
  // attached and no BPF is loaded. With functions, the benchmark figures still come only from
  // executions without probes (runner/measure.hpp: clean executions).
  bool benchmarks_only() const { return functions.empty() && benchmarks == "go"; }
  bool clean_benchmarks() const { return benchmarks == "go"; }
  // benchmark_cpu: true (with benchmarks: go): each benchmark also gets cpu-ns/op, its execution's
  // CPU time (wait4's rusage: user + system, every thread) over its b.N. Other processes on the
  // runner delay a benchmark's wall clock (ns/op) but not its CPU time. Needs one benchmark result
  // an execution (a -test.bench regex that matches one benchmark, -test.count 1).
  bool benchmark_cpu = false;
  int profile_hz = 0;  // profile: {hz: N}: sample CPU profiles at N Hz per CPU; 0: off
  // The instrument (issue 39, stats/instrument.hpp): "auto" chooses per function from the first
  // pair's probe share; "probes" times each call; "samples" takes its CPU time from cpu-clock samples.
  // "auto" by default since it passes issue 34's branch and its A/A through ci/pre-merge.sh 10 of 10
  // with counts from executions without probes and sparse counts pooled (tests/bench/
  // pre_merge_scenario.sh; docs/how-it-measures.md, "What it measured here").
  std::string measure = "auto";
  // "auto": exact (entry and return probes); under measure: samples, "entry" after gate ab's first
  // pair; "exact": always; "entry": every function's calls counted by its entry probe alone (no
  // return probes), its time from samples.
  std::string calls = "auto";
  // sampling: {hz: N}: the sampled instrument's rate (probe_share: still accepted, no longer used).
  int sampling_hz = kDefaultSamplingHz;
  // The instrument and call counting of one function: its entry's setting, else the config's.
  std::string measure_of(const std::string& function) const;
  std::string calls_of(const std::string& function) const;
  // Whether a run needs CPU samples: some function may be measured by samples.
  bool samples_needed() const;
  std::string baseline;          // default baseline file (relative to dir)
  std::string hash;              // fnv1a64_fingerprint of the file's bytes (common/fnv.hpp): a changed config

  // run_as: who the workload, the service, the load driver and the build run as (a user name or a
  // uid; runner/run_as.hpp). "": the user sudo ran as (SUDO_UID), else gate's own. The CLI's
  // --run-as replaces it (run_as_from_flag then says so in errors).
  std::string run_as;
  bool run_as_from_flag = false;

  // How native functions' returns are probed: "auto", "uretprobe" or "ret_sites" (plan/native_plan.hpp).
  std::string native_returns = "auto";

  std::vector<std::string> patterns() const;  // the Go functions' (native ones are not in it)
  std::vector<plan::NativeRequest> native_requests() const;
  std::vector<plan::BucketRequest> bucket_requests() const;
};

// Throws gate::Error (exit 2) naming the file, the key (with line) and the fix.
Config load_config(const std::string& path);
// The same from text: `path` places the config (its directory anchors relative paths), `label`
// names it in errors (default: path), e.g. "origin/main:gate.yaml" for a config read from git.
Config parse_config(const std::string& text, const std::string& path, const std::string& label = "");

// What every measuring command does when neither its command line nor the config says whether to
// exclude other processes' preemption (gate check: as its baseline was measured).
constexpr bool kExcludePreemptionByDefault = false;

// Whether calls are timed minus other processes' preemption: the command line's choice (flag),
// else the config's, else `fallback` (kExcludePreemptionByDefault; gate check: its baseline's).
inline bool exclude_preemption(const Config& cfg, std::optional<bool> flag, bool fallback) {
  return flag.value_or(cfg.exclude_preemption.value_or(fallback));
}

// Whether a suspected regression fails the build when neither the command line nor the config
// says (README "How it decides": measured on the pre-merge path and the noise lab's A/A).
constexpr bool kFailOnSuspectByDefault = false;

// gate ab's and calibrate's unit length when the config does not set min_unit_seconds. Measured
// (docs/units-and-layouts.md): the machine's speed swings on 0.1-1 s timescales, so a unit of a
// second averages several swings; shorter units left a 0.3 s workload mostly inconclusive.
inline constexpr double kDefaultMinUnitSeconds = 1.0;

// How far measure-until-decided goes for a suspected regression: the config's suspect_max_runs,
// else twice max_runs when the config measures adaptively (max_runs above runs), else runs (no
// extension: a fixed number of runs stays fixed).
inline int suspect_max_runs(const Config& cfg, int runs, int max_runs) {
  if (cfg.suspect_max_runs > 0) return std::max(cfg.suspect_max_runs, std::max(runs, max_runs));
  return max_runs > runs ? 2 * max_runs : runs;
}

// How the plan finds and probes the config's native functions: native_returns, and the
// LD_LIBRARY_PATH the workload will run with (env: in the config, else gate's own).
plan::NativeOptions native_options(const Config& cfg);

}  // namespace gate::runner
