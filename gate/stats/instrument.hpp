// Which instrument measures a function (issue 39): its probes (latency quantiles per call) or CPU
// samples (its CPU time per call, without gate's probes), and the sampled instrument's test.
// Values only: explain/ and report/ say it in words.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "results/result.hpp"
#include "stats/compare.hpp"
#include "stats/speed.hpp"

namespace gate::stats {

// Why: on CI VMs a probe hit costs 6-22 us (a Go `ret` is single-stepped, and the hypervisor
// intercepts the trap), so a function of a few microseconds reads mostly probe time, and every
// traced caller carries its callees' probes: a real change in its own code drowns (issue 39 measured
// a 13% slowdown read as 1.02x). cpu-clock samples whose stack holds the function, leaving out the
// ones inside gate's probe handling, are its CPU time without the probes.
enum class Instrument : uint8_t { kProbes, kSamples };
std::string_view to_string(Instrument i);  // "probes", "samples"

// The config's `measure:`: auto chooses per function from the first pair (choose_instrument).
enum class MeasureSetting : uint8_t { kAuto, kProbes, kSamples };
MeasureSetting parse_measure_setting(const std::string& s);  // throws gate::Error (exit 2)
std::string_view to_string(MeasureSetting m);

// What the first units say of a function, for the choice.
struct InstrumentFacts {
  bool sampled = false;       // both sides' first units were sampled
  double probe_share = 0;     // probe samples / all samples whose stack holds it (pooled)
  double on_cpu = 0;          // its sampled CPU time (probes included) / its probed time: < 1 waits
  double samples_per_unit = 0;  // its self samples (stats::sampled_ns_per_call), mean over those units
  bool latency_timed = false;   // its probes timed calls (not `calls: entry`)
};

struct InstrumentRule {
  // Probes dominate above this share of the function's sampled time (issue 39: "e.g. > 20%").
  double max_probe_share = 0.2;
  // Below this share of its probed time on CPU the function waits (I/O, locks, channels, sleep):
  // only the probes see that time. Not 0.5: a CPU-bound function whose thread shares a loaded
  // 2-vCPU runner is off CPU (runnable, preempted) for about half of its probed time, and at 0.5
  // tests/go/hotloop's main.hot (probes 81%) went to probes in one trial of three with a build
  // beside it (tests/bench/sampled_lab.sh).
  double min_on_cpu = 0.2;
  // Fewer samples a unit than this (its sampling error then > ~30% a unit) leave it on probes.
  double min_samples_per_unit = 10;
};

// The facts from the first unit of each side (gate ab's first pair; check: the baseline's first
// run and the head's). Units without sampling give sampled = false.
InstrumentFacts instrument_facts(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                 const std::string& function);

// auto: samples when the function is sampled, probes dominate it, it does not wait and it has
// enough samples; or when its probes time nothing (`calls: entry`). A fixed setting stands.
Instrument choose_instrument(MeasureSetting setting, const InstrumentFacts& f, const InstrumentRule& rule);

// The per-run value of the sampled instrument: CPU ns per call (self samples x period / calls): the
// function's CPU time, and its callees' that are not declared, without gate's probes; declared
// callees are left out, as they have verdicts of their own (a slowed callee does not flag every
// declared caller). NaN when the run was not sampled, has no calls or no sample of the function.
double sampled_ns_per_call(const RunResult& run, const FunctionRun& f);

// The sampled instrument's test of one function: per run its CPU time per call, each divided by
// the run's speed factor when `speed` is usable, compared as the latencies are (paired t in gate ab,
// the run-level bootstrap against a baseline). The sampling error is part of each unit's value, so
// the run-to-run variance the interval rests on includes it. The test is named "cpu/call".
QuantileComparison sampled_test(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                                const std::string& function, const CompareOptions& o, bool paired,
                                const SpeedFactors& speed);

inline constexpr const char* kSampledTestName = "cpu/call";

}  // namespace gate::stats
