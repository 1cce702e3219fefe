// Comparing head against base: per function and quantile the head/base latency ratio with a
// confidence interval over runs, a verdict, calls per run, and the exit code the gate should end with.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "results/result.hpp"
#include "stats/exact_counts.hpp"
#include "stats/multiplicity.hpp"
#include "stats/noise_sources.hpp"
#include "stats/speed.hpp"

namespace gate::stats {

// Ordered worst first: a function's verdict is the minimum over its quantiles.
// kSuspect: inconclusive after the family's correction, yet this test alone (its looks counted)
// shows the ratio above its threshold: a suspected regression. It fails the build only with
// fail_on_suspect; every report lists it first after the regressions.
enum class Verdict { kRegression, kSuspect, kInconclusive, kInsufficientData, kUnchanged, kImprovement };
std::string_view to_string(Verdict v);  // "regression", "suspect", "inconclusive", "insufficient data", ...
inline Verdict worst(Verdict a, Verdict b) { return a < b ? a : b; }

// What to compare per run: a quantile of the calls' latency, or their mean.
struct QuantileSpec {
  std::string name = "p50";  // shown in reports and used for per-quantile thresholds
  double q = 0.5;            // in (0, 1); unused when is_mean
  bool is_mean = false;

  // "p50", "p90", "p99", "p99.9" (or "p999"), "p5" (5%), "mean". Throws gate::Error (exit 2)
  // naming the bad spec.
  static QuantileSpec parse(const std::string& name);
};

// Calls a run needs for a quantile to be estimated from its own calls rather than from one or two
// extreme ones: min_tail_calls beyond the quantile, i.e. ceil(min_tail_calls / (1 - q)) -- with 10,
// p50 needs 20, p90 100, p99 1000, p99.9 10000. It is also where the within-run bootstrap's Beta
// approximation is accurate (both Beta parameters >= 10). The mean asks for 2 * min_tail_calls.
uint64_t min_calls_per_run(const QuantileSpec& spec, double min_tail_calls);

// How much slower (regression) or faster (improvement) counts, as a fraction: 0.03 = 3%. A verdict
// is regression only when the whole confidence interval of the ratio lies above 1 + regression.
struct Band {
  double regression = 0.03;
  double improvement = 0.03;
};

// Why 3% by default. The threshold is not only "the smallest change worth failing for": it
// decides which changes the gate can catch. A change d is caught reliably once d is ~5 standard
// errors of the log ratio above the threshold (Holm's critical value for ~60 tests, ~3.5 with
// Student tails, plus ~1.7 for 95% power). Measured on synthetic runs (tests/stats/
// calibration_test.cpp: 2000 calls a run, 3% run-to-run noise), a 10% p50 slowdown is caught
//   - alone (1 function, 2 tests), 10 runs a side: 97-98.5% with 3%, 73% with 5%;
//   - among 30 functions (60 tests): 60% at 10 runs and 97% at 20 with 3%; 24% and 73% with 5%.
// An unchanged program never failed (0 of 200 A/A splits, 30 functions, 5% noise): an unchanged
// function sits a whole threshold below the boundary, and at the boundary itself Holm holds false
// regressions below 2.5% (0.5% measured, without speed normalization). The price of 3%: proving
// "unchanged" (the 90% interval inside +-3%) needs ~20 runs on a noisy runner; at 10 unpaired runs
// a side with 5% noise 0.3% of A/A tests read unchanged and the rest "inconclusive", which passes
// and asks for more runs. A function that moved by exactly the band reads unchanged in 2.1-2.5% of
// tests (5% allowed). p99 of 2000 calls rests on 20 calls a run and is rarely provably unchanged.
struct Thresholds {
  Band defaults;
  std::map<std::string, Band> per_quantile;  // quantile name -> band
  std::map<std::string, Band> per_function;  // function name -> band (all its quantiles)
  std::map<std::string, std::map<std::string, Band>> per_function_quantile;  // function -> quantile -> band

  // Most specific wins: function+quantile, then function, then quantile, then defaults.
  Band lookup(const std::string& function, const std::string& quantile) const;
};

// Whether base run i and head run i form a pair (see paired_ratio in stats/bootstrap.hpp).
enum class Pairing {
  kAuto,  // pair when both sides came from one `gate ab` (every base run is variant "base",
          // every head run "head"): its runs alternate, so run i of each met the same machine
  kOff,   // never (runs recorded at different times: a stored baseline)
  kOn,    // always, by run index
};

enum class CallsPolicy {
  kReport,          // a change in calls per run is shown, never fails (default)
  kFailOnIncrease,  // more calls per run than base by the ratio fails (total time grew)
  kFailOnChange,    // any change by the ratio fails (the workload is not doing the same thing)
};

struct CompareOptions {
  std::vector<QuantileSpec> quantiles = {QuantileSpec::parse("p50"), QuantileSpec::parse("p99")};
  Thresholds thresholds;
  // Two-sided confidence of the reported intervals. Regressions and improvements are each decided
  // by one-sided tests at (1 - confidence) / 2, family-wise over all tests with `multiplicity`
  // (two families, so together they stay within 1 - confidence).
  double confidence = 0.95;
  // "Unchanged" is an equivalence claim, tested as equivalence is tested in bioequivalence and
  // drug trials (Schuirmann's two one-sided tests): both "slower by the band or more" and "faster
  // by the band or more" rejected at this level each, which is the (1 - 2 alpha) = 90% interval
  // lying inside the band. gate first asked the 95% interval to lie inside, a test at 2.5% each: on
  // this project's noisy 2-vCPU machine that left half of an A/A's functions "inconclusive" after 30
  // pairs (issue 11). A false "unchanged" only stops the runs early: it passes the build exactly as
  // "inconclusive" does, and a regression is still decided by the stricter one-sided test above.
  double equivalence_alpha = 0.05;
  // Measure-until-decided compares after first_look units (pairs, or runs a side) and again after
  // each unit added up to last_look. When last_look > first_look, every one-sided p-value is made
  // a sequential one for those looks (stats/sequential.hpp) before Holm, so that looking up to 21
  // times does not raise the false-alarm rate (at the threshold: 8.7% -> 2.8%, nominal 2.5%).
  int first_look = 0;
  int last_look = 0;
  bool sequential() const { return last_look > first_look && first_look > 0; }
  // A suspected regression (Verdict::kSuspect) fails the build (exit 1) like a regression.
  bool fail_on_suspect = false;
  int resamples = 2000;
  uint64_t seed = 0x67617465;  // fixed: the same inputs always give the same verdicts
  // Below 5 runs a side a run-level bootstrap has at most 126 distinct resamples and its 95%
  // interval is essentially the range of the runs; benchstat needs 4-6, compare.py warns below 9.
  int min_runs = 5;
  double min_tail_calls = 10;  // see min_calls_per_run()
  // Per-run values (log ns) farther than this many robust SDs from their side's median are
  // clipped before averaging (see winsorized_log_mean in bootstrap.hpp): a GC storm in one run of
  // ten moves the estimate by at most 0.4 SD, and without outliers it is the full-efficiency mean.
  // 4 rather than 3: with 5-10 runs the robust SD is itself noisy, and at 3 ordinary runs were
  // clipped often enough to narrow the intervals (93.7% coverage for 95% at 5 runs; 94.5% at 4).
  double outlier_sigmas = 4.0;
  double calls_ratio_threshold = 1.5;  // calls per run changed when head/base >= this or <= 1/this
  CallsPolicy calls_policy = CallsPolicy::kReport;
  Multiplicity multiplicity = Multiplicity::kHolm;
  // Take the machine's speed out of each run: subtract, in log space, the run's speed factor from
  // its other functions (stats/speed.hpp). Needs >= 5 functions with enough calls in every run;
  // otherwise the comparison runs without it and says so in `method`.
  bool normalize_speed = true;
  // Paired comparisons: fit each function's elasticity to the speed factor (ANCOVA, one degree of
  // freedom) instead of assuming 1; see stats::paired_ratio. The default (config
  // speed_normalization: fitted): in the shop A/A under CI load it took the functions that read
  // "unchanged" from 80% to 89% of the same runs, with no false regression.
  bool fit_speed_elasticity = true;
  Pairing pairing = Pairing::kAuto;
  // When set, insufficient data for any function makes the exit code 3 (could not measure).
  bool require_sufficient_data = false;
  // Warn when a side lost more than this fraction of a function's calls (dropped or unmatched):
  // the lost calls are not a random sample, so the latencies may be biased.
  double max_lost_fraction = 0.01;

  // How each function is measured (issues 39, 54; stats/instrument.hpp): the config's `measure:`
  // per function, else measure_default; auto judges by both instruments. Applied after compare() by
  // verdict::judge_instruments (compare() itself compares the probes' latencies).
  std::map<std::string, uint8_t> measure;  // function -> MeasureSetting (0 auto, 1 probes, 2 samples)
  uint8_t measure_default = 0;             // MeasureSetting::kAuto

  // Threads for the per-function work (0: one per hardware thread). The result is identical for
  // any value: each test's resamples depend on its seed only.
  unsigned threads = 0;

  // Throws gate::Error (exit 2) naming the first option out of range and its allowed range.
  void validate() const;
};

// Why a test's verdict is what it is, as values. stats/ never writes the sentence: explain/ does
// (explain::reason), for every report and log.
struct Why {
  enum class Kind : uint8_t {
    kNone,               // nothing to explain: decided by its interval (or not yet decided)
    kNotMeasurable,      // `side`'s probe could not time it; `detail`: the probe's own reason
    kNoCalls,            // `side` recorded no call
    kTooFewRuns,         // `side` has `have` runs, `need_runs` needed
    kTooFewCallsPerRun,  // `side` has `have` runs with >= need_calls calls (median calls_per_run)
    kTooFewPairs,        // `have` pairs of runs with >= need_calls calls each, need_runs needed
    kTooFewMetricRuns,   // a benchmark metric: `side` has `have` runs with it
    kTooFewMetricPairs,  // a benchmark metric: `have` pairs of runs with it
    kSameConstant,       // a benchmark metric: the same value in every run of both sides
    kTooFewSampledRuns,  // the sampled instrument: `side` has `have` runs with samples of it, need_runs needed
    kSuspect,            // past its threshold by its own test (own_low/own_high), not after the family's
    kAboveButWide,       // estimate above +band, its interval reaches below the threshold
    kBelowButWide,       // estimate below -band, its interval reaches above it
    kEquivalenceWide,    // within the band, the equivalence interval reaches past it (which: eq_past_*)
    // a benchmark metric whose modes across executions moved apart (BenchmarkModes::apart): one
    // mode's change differs from another's by more than the band, so neither "unchanged" nor
    // "improvement" holds for every execution
    kModesApart,
    // measure: auto's roles (issue 54; QuantileComparison::window_probe_share, speaks):
    kWindowMostlyProbes,  // a latency test held from "unchanged"/"improvement": gate's probes are
                          // window_share of its window, so a change of the band in the code moves
                          // the window by only band x (1 - share) (eq_past_*: which edge it reached)
    kCpuBlindToWaits,     // the sampled test's unchanged/improvement do not speak: the function waits
                          // (on_cpu of its window without probes), which CPU samples cannot see
    kSampledFigureRuledOut,  // the sampled test is shown, never used: its CPU per call is ruled out by
                             // the function's windows (detail: why)
  };
  Kind kind = Kind::kNone;
  std::string side;    // "base" or "head"
  std::string detail;  // kNotMeasurable: the result's not_measurable_reason, quoted as the probe plan recorded it
  uint64_t need_calls = 0;
  int need_runs = 0;
  int have = 0;
  double calls_per_run = 0;
  double own_low = 0, own_high = 0;  // kSuspect: its own interval, looks counted
  double alpha = 0;                  // the one-sided level of the family
  int tests = 0;                     // how many tests the correction was over
  bool eq_past_regression = false, eq_past_improvement = false;
  double window_share = 0;  // kWindowMostlyProbes: the share of its window that is not its code
  double probe_share = 0;   // kWindowMostlyProbes: of it, gate's probes by the estimate
  double on_cpu = 0;        // kCpuBlindToWaits: the share of its window without probes on CPU
  // The family's settings the decision was taken with (set with the four undecided kinds above),
  // so that the sentence needs no CompareOptions: looks counted (0: one look), the correction,
  // and the equivalence level.
  int looks = 0;
  Multiplicity multiplicity = Multiplicity::kHolm;
  double equivalence_alpha = 0.05;
};

// A quantile between two modes of a function's calls, compared by the mean of the calls from
// level lo to hi instead (compare.cpp, window_for): the levels probed either side and their values.
struct ModeWindow {
  bool used = false;
  double lo = 0, hi = 0;
  double below = 0, above = 0;
  double below_ns = 0, above_ns = 0;
};

struct QuantileComparison {
  std::string name;
  Band band;                 // the thresholds applied
  double base_ns = 0;        // per-run quantile, winsorized geometric mean over runs (0 when not computed)
  double head_ns = 0;
  double ratio = 0;          // head_ns / base_ns
  // The interval that decided: its lower bound at the one-sided level the regression family's
  // correction (multiplicity and looks) gave this test, its upper bound at the improvement
  // family's. A regression is exactly ci_low above 1 + band.regression, an improvement ci_high
  // below 1 - band.improvement (stats/family.hpp). Before the family is decided: the test's own.
  double ci_low = 0;
  double ci_high = 0;
  // The test's own interval at `confidence`, as if it were the only test at one look (reports
  // show it only in JSON, named as unadjusted).
  double raw_ci_low = 0;
  double raw_ci_high = 0;
  double ci_level_regression = 0;   // the one-sided levels ci_low / ci_high were taken at
  double ci_level_improvement = 0;
  // The interval's model: log(ratio) ~ log_center + log_scale * t(df).
  double log_center = 0;
  double log_scale = 0;
  double p_regression = 1;   // one-sided p for H0: ratio <= 1 + band.regression (raw, then adjusted)
  double p_regression_adjusted = 1;
  // p_regression made sequential for the looks but not adjusted for the other tests: what a
  // suspect is judged by (below (1 - confidence) / 2).
  double p_regression_own = 1;
  double p_improvement = 1;  // one-sided p for H0: ratio >= 1 - band.improvement
  double p_improvement_adjusted = 1;
  // Equivalence (TOST, two one-sided tests): the larger of the one-sided p-values for "ratio >= 1 +
  // band.regression" and "ratio <= 1 - band.improvement"; unchanged when it is below
  // CompareOptions::equivalence_alpha, i.e. the (1 - 2 alpha) interval lies inside the band.
  double p_unchanged = 1;
  double eq_low = 0;   // that (1 - 2 equivalence_alpha) interval (set by decide(); 0 when untested)
  double eq_high = 0;
  int base_runs_used = 0;    // runs with enough calls for this quantile
  int head_runs_used = 0;
  Verdict verdict = Verdict::kInsufficientData;
  bool more_runs_would_help = false;
  Why why;                   // why the verdict is what it is (values; explain::reason says it)
  // The noise behind the interval, so that a report can say what this comparison could see:
  bool paired = false;       // pairs of runs (gate ab) rather than two independent sides
  int units = 0;             // pairs, or the smaller side's runs
  double df = 0;             // degrees of freedom of the interval
  double elasticity = 1;     // paired + speed_normalization: fitted: the power of the speed factor taken out
  double noise = 0;          // log-sd of one unit's head/base difference (0.05: ~5% per pair)
  double detectable = 0;     // smallest slowdown ratio caught with ~80% power at these units (e.g. 1.12)
  int units_to_decide = 0;   // inconclusive: roughly how many units a side would decide it (0: unknown)
  // Inconclusive: where its noise comes from (which calls a run made, or the machine's state).
  std::optional<NoiseSources> noise_sources;
  // Set when the quantile lies between two modes and the mean of the calls around it was compared
  // instead (see window_for in compare.cpp); explain::note says so in words.
  ModeWindow window;
  // The sampled instrument (stats::sampled_test) with sparse counts: the units' CPU time pooled
  // (stats::pooled_count_ratio) rather than a log per unit; the samples each side counted in the
  // units it used. explain::note says so.
  struct PooledCounts {
    bool used = false;
    uint64_t base_samples = 0;
    uint64_t head_samples = 0;
  } pooled;
  // The sampled instrument with a side that counted no sample at all (issue 54): the exact
  // conditional test of the two counts (stats/exact_counts.hpp) instead of an interval over units;
  // its p-values and bounds are exact, and log_center is its half-sample estimate.
  ExactCounts exact;
  // measure: auto judges a function by its latency and its CPU samples at once (issue 54; verdict/
  // instruments.hpp). A latency test's window_probe_share is the estimated share of the function's
  // window that is gate's own probes (stats::WindowFacts; NaN: not known): a change x in the code
  // moves the window by x (1 - share), so it may call the function unchanged only within
  // band x (1 - share), and an improvement only while the probes are at most half the window
  // (decide_test; Why::kWindowMostlyProbes). speaks false: the test may flag a regression (or a
  // suspect) but its unchanged or improvement says nothing for the function (function_verdict): the
  // sampled test of a function that waits, or whose sampled figure its windows rule out.
  double window_probe_share = std::numeric_limits<double>::quiet_NaN();
  // The share of the window that is the function's code (callees included) by its CPU samples:
  // its cpu per call over its median window, known only for a function sampled that does not wait
  // (NaN otherwise). Where the probe estimate leaves more of the window than the samples find
  // code in it (a single-stepped probe costs more inside the window than half its hit: hotloop's
  // main.hot, window 7.1 us, probes estimated 45%, code 2.1 us = 30%), the smaller share narrows
  // the band: an 8% change in the code moved that window ~2.4%, which a band of 5% x 55% = 2.75%
  // called "unchanged" (CI, 2026-12-02). The code share is used only to narrow, never to widen.
  double window_code_share = std::numeric_limits<double>::quiet_NaN();
  bool speaks = true;
  // gate ab over several layout variants per side: the interval widened for the variance between
  // layouts (stats/layout_variance.hpp); factor 1: not widened. explain::note says so.
  struct Layouts {
    int layouts = 0;      // layouts the units were spread over (0: one per side)
    double share = 0;     // share of the per-unit variance that is between layouts
    double factor = 1;    // log_scale after / before
  } layouts;
  bool tested() const { return verdict != Verdict::kInsufficientData; }
  // Undecidable for want of units: why.kind, `have` of the `need` needed (on `side`, when one side
  // lacks them); more runs would help.
  void too_few(Why::Kind kind, int have, int need, std::string side = "") {
    why.kind = kind;
    why.side = std::move(side);
    why.need_runs = need;
    why.have = have;
    more_runs_would_help = true;
  }
};

// Per side, totals over its runs.
struct CallCounters {
  uint64_t calls = 0;
  uint64_t unmatched_entries = 0;
  uint64_t unmatched_returns = 0;
  uint64_t diverted_entries = 0;
  uint64_t dropped = 0;
};

struct FunctionComparison {
  std::string name;
  Verdict verdict = Verdict::kInsufficientData;  // worst of quantiles, and of calls when they fail
  std::vector<QuantileComparison> quantiles;     // in CompareOptions::quantiles order
  double base_calls_per_run = 0;                 // medians over runs (0 for a run without the function)
  double head_calls_per_run = 0;
  double calls_ratio = 0;                        // head / base; +inf when base is 0, NaN when both are
  bool calls_changed = false;
  bool calls_failed = false;                     // calls_changed and the policy makes it fail
  CallCounters base_counters;
  CallCounters head_counters;
  // The instrument its verdict rests on (stats/instrument.hpp; verdict::judge_instruments): 0 its
  // probes' latency quantiles, 1 CPU samples (quantiles then holds the one "cpu/call" test). With
  // the first pair's probe share (probe samples over all samples whose stack holds it; -1 when the
  // runs were not sampled) and the sampled CPU time per call on each side (0: not sampled).
  uint8_t instrument = 0;
  double probe_share = -1;
  double base_cpu_ns = 0, head_cpu_ns = 0;
  // measure: auto (issue 54): the window figures its tests were judged with (stats::WindowFacts):
  // the share of its window that is gate's probes (NaN: not known), the share of the rest on CPU
  // (NaN: not known), and whether it waits (then CPU samples cannot call it unchanged).
  double window_probe_share = std::numeric_limits<double>::quiet_NaN();
  double window_code_share = std::numeric_limits<double>::quiet_NaN();  // QuantileComparison's, by samples
  double on_cpu = std::numeric_limits<double>::quiet_NaN();
  bool waits = false;
  const QuantileComparison* find(std::string_view quantile) const;
};

// A function's verdict from its tests (issue 54): any test's regression or suspect is the
// function's (the worst of them); else the best of its instruments' verdicts, each instrument's the
// worst of its tests that speak (the latency quantiles; the sampled cpu/call), ranked unchanged and
// improvement above inconclusive above insufficient data: one instrument that can say "unchanged"
// says it for the function, since the other's inconclusive is its own noise or its blindness. A
// test that does not speak (QuantileComparison::speaks) counts only when it flags. The calls
// policy is applied by the caller.
Verdict function_verdict(const std::vector<QuantileComparison>& tests);

struct VerdictCounts {
  int regression = 0;
  int suspect = 0;
  int inconclusive = 0;
  int insufficient_data = 0;
  int unchanged = 0;
  int improvement = 0;
  int& operator[](Verdict v);
  int operator[](Verdict v) const;
};

// One metric of one Go benchmark (config `benchmarks: go`): its per-run values compared like a
// function's per-run p50, in the same family of tests (stats/benchmark_tests.hpp, verdict/benchmark_family.hpp).
// A mode of a benchmark metric's executions (stats/benchmark_modes.hpp): where it lies on each
// side, how many of the side's executions it holds, and its own change.
struct BenchmarkMode {
  double base_value = 0, head_value = 0;     // geometric mean of the mode's executions, in the unit (0: none)
  int base_executions = 0, head_executions = 0;
  double base_share = 0, head_share = 0;     // of the side's executions
  // head/base of the units' best execution in this mode (base/head when higher is better: > 1 is
  // worse), with its interval at the comparison's confidence over the units that hold the mode
  // (NaN: fewer than 3 such units on a side).
  double ratio = 0, ci_low = 0, ci_high = 0;
  int base_units = 0, head_units = 0;
};

// Modes across a benchmark metric's executions, and which fold of a unit's executions decided.
struct BenchmarkModes {
  enum class Fold : uint8_t {
    kFastest,      // no modes: each unit's fastest execution (results/unit_merge.cpp)
    kFastestMode,  // modes, and the fastest executions (all in the fast mode) agree with every mode's fold
    kEveryMode,    // modes that moved apart, or whose mix moved: each unit's modes by their share in it
  };
  // The faster mode first (less time, or more throughput); empty when neither side has modes.
  std::vector<BenchmarkMode> modes;
  bool base_found = false, head_found = false;  // which side's executions showed the modes
  // Two modes' changes differ by more than the band: the interval of their ratio (at the
  // comparison's confidence) lies wholly outside it.
  bool apart = false;
  std::string apart_in;  // apart in another metric of the benchmark (its unit), whose executions these are
  // The modes were labelled by another metric of the benchmark (the clearest of its time and
  // throughput metrics): this metric's own values blur them (ns/op stretched by other processes).
  bool borrowed = false;
  Fold fold = Fold::kFastest;
  // The fold that did not decide, for the report: its head/base and interval (worse-oriented).
  double other_ratio = 0, other_low = 0, other_high = 0;
  bool found() const { return !modes.empty(); }
};

struct BenchmarkMetricComparison {
  std::string benchmark;          // as printed: "BenchmarkCartCheckout-2"
  std::string unit;               // "ns/op", "B/op", "allocs/op", "MB/s", any custom unit
  bool higher_is_better = false;  // throughput units (".../s") and units declared better=higher
  double base_value = 0;          // median over the side's runs, in the unit
  double head_value = 0;
  // The test: ratio and interval of head/base (base/head when higher is better, so that > 1 is
  // always worse and the regression band applies as for latencies); test.name is the unit.
  QuantileComparison test;
  bool in_family = false;  // counted in the multiple-testing family (false: identical constants, or no data)
  BenchmarkModes modes;    // modes across executions (time and throughput metrics)
};

// Something about the benchmark output that the comparison left out, as values (explain::
// benchmark_finding says it).
struct BenchmarkFinding {
  enum class Kind : uint8_t {
    kOutputLine,      // a run's result holds a warning about its benchmark output (`recorded`, as stored)
    kUnitOnlyInBase,  // `benchmark` printed `unit` in base only: not compared
    kUnitOnlyInHead,
    // one side's units of several executions hold their mean time per op (a result written before
    // gate took the fastest), the other's their fastest: that side is `recorded` ("base", "head")
    kFoldDiffers,
    // `benchmark`'s wall-time `unit` (ns/op, sec/op) was left undecided (inconclusive or suspect)
    // with `noise` (log-sd a unit) and the comparison has no CPU time per op for it: wall time
    // carries every moment another process held the benchmark's CPU, CPU time does not
    // (benchmark_cpu); `only_benchmark` when it is the comparison's only benchmark (then
    // benchmark_cpu can simply be set)
    kWallTimeUndecided,
  };
  Kind kind = Kind::kOutputLine;
  std::string benchmark, unit;
  std::string recorded;  // kOutputLine: the result file's warning, quoted as it was recorded
  double noise = 0;      // kWallTimeUndecided: the metric's noise a unit (log-sd)
  bool only_benchmark = false;  // kWallTimeUndecided: the comparison holds no other benchmark
};

// Which executions a side's benchmark figures came from (issue 39): clean ones (no probe
// attached) since gate measures benchmarks without probes; probed ones in results of before.
// Counts over the side's runs; explain::benchmark_source says them.
struct BenchmarkSource {
  int runs = 0;               // runs holding benchmark figures (0: none)
  int clean_runs = 0;         // of those, runs with clean executions
  int clean_executions = 0;   // summed over clean_runs
  int probed_executions = 0;  // summed over clean_runs
  // A unit's time per op is its fastest execution's (results/unit_merge.cpp; the result file says so,
  // kBenchmarkFoldKey); false: a result written before, whose units hold the executions' mean.
  bool fastest = false;
  bool operator==(const BenchmarkSource&) const = default;
};
BenchmarkSource benchmark_source(const std::vector<RunResult>& runs);

struct BenchmarkComparison {
  std::vector<BenchmarkMetricComparison> metrics;  // worst verdict first, then highest ratio
  std::vector<std::string> only_in_base;           // benchmark names that ran on one side only
  std::vector<std::string> only_in_head;
  std::vector<BenchmarkFinding> findings;          // malformed output lines, metrics missing on a side
  VerdictCounts counts;                            // per metric
  BenchmarkSource base_source, head_source;        // which executions the figures came from
  std::string without_results;                     // "base" or "head": that side holds no benchmark results
  bool present() const { return !metrics.empty() || !only_in_base.empty() || !only_in_head.empty(); }
};

// Something about the two results that may bias the comparison, as values; explain::warnings
// says it.
struct Finding {
  enum class Kind : uint8_t {
    kContextDiffers,  // `aspect` (CPU model, kernel, Go version, ...) differs: base / head values
    kConfigDiffers,   // the config's hash differs: base / head hashes
    kPartial,         // `side`'s result is partial; detail: why, as the result recorded it
    kNoCalls,         // `side` recorded no call of any compared function
    kCommonShift,     // every function moved alike (ratio, low, high), not counted in the verdicts
    kProbeDiffers,    // `function`: `aspect` (entry probe placement or handling) differs: base / head
    kDroppedCalls,    // `function`: `side` dropped `count` of `total` calls
    kUnmatchedCalls,  // `function`: `side` has `count` unmatched entries/returns against `total` calls
    // The config changed since the baseline was recorded (gate check; verdict::settle): detail is
    // the config's path. Said after the callers' notes, where gate check has always said it.
    kConfigChangedSinceBaseline,
  };
  // What differs, for kContextDiffers and kProbeDiffers.
  enum class Aspect : uint8_t {
    kNone,
    kCpuModel,
    kCpuCount,
    kKernel,
    kGoVersion,
    kGateVersion,
    kAttachMode,
    kEntryPlacement,  // the entry probe's placement
    kEntryHandling,   // the entry probe's handling (its cost class)
  };
  Kind kind;
  Aspect aspect = Aspect::kNone;
  std::string function, side, base, head, detail;
  uint64_t count = 0, total = 0;
  double ratio = 0, low = 0, high = 0;
};

// How the verdicts were reached, as values (explain::method, explain::method_short say it): what
// the comparison did and the settings it did it with.
struct MethodFacts {
  bool speed_fitted = false;      // paired, speed-normalized, elasticity fitted per function
  SpeedNotUsed speed_not_used;    // speed normalization asked for but impossible: why
  int resamples = 0;
  bool with_benchmarks = false;   // Go benchmark metrics share the family (verdict/benchmark_family)
  // The CompareOptions the sentences name.
  double confidence = 0.95;
  double equivalence_alpha = 0.05;
  double outlier_sigmas = 4.0;
  Multiplicity multiplicity = Multiplicity::kHolm;
  bool normalize_speed = true;
  int first_look = 0, last_look = 0;  // sequential looks (last_look > first_look > 0)
  bool sequential() const { return last_look > first_look && first_look > 0; }
};

struct Comparison {
  std::vector<FunctionComparison> functions;  // worst verdict first, then highest ratio, then name
  // Every function moved alike: the head/base ratio of the runs' speed factors (stats/speed.hpp),
  // which normalize_speed takes out of each function. Tested (a verdict that can fail the build)
  // only when the runs are paired, i.e. measured back to back on one machine (gate ab); against a
  // stored baseline the machine itself may differ, so it is a warning there. tested() false when
  // speed normalization was off or not possible.
  QuantileComparison common_shift;
  bool common_shift_tested = false;
  bool speed_normalized = false;
  bool paired = false;
  bool suspects_fail = false;                 // CompareOptions::fail_on_suspect: a suspect exits 1
  std::vector<std::string> only_in_base;      // sorted; never compared, never silently dropped
  std::vector<std::string> only_in_head;
  std::vector<Finding> findings;              // what may bias it, as values (explain::warnings)
  // Measure-until-decided went past max_runs (up to suspect_max_runs) because these tests read
  // past their threshold and were predicted to decide soon; empty when it did not.
  struct Extension {
    int max_units = 0;               // the config's max_runs
    int units = 0;                   // units (pairs, or runs a side) measured in the end
    std::vector<std::string> tests;  // "pricing.Apply p50"
  } extension;
  MethodFacts method_facts;                   // how the verdicts were reached (explain::method)
  VerdictCounts counts;                       // per function
  int base_runs = 0;
  int head_runs = 0;
  int tests = 0;                              // function x quantile tests with enough data
  BenchmarkComparison benchmarks;             // Go benchmark results, when the runs hold them
  // What gate's probes cost a traced call in these runs (stats::probe_cost_per_call), from which
  // each function's window probe share was estimated; NaN: not known (no trial execution).
  double probe_cost_ns = std::numeric_limits<double>::quiet_NaN();
  // A side recorded no calls of any compared function, or some function lacks data and
  // require_sufficient_data is set: the comparison could not measure enough.
  bool measured_too_little = false;
  // The process exit code, decided in verdict/ (verdict::exit_code) once the verdicts are final;
  // the reports show it. The statistics never set it.
  ExitCode exit_code = ExitCode::kOk;

  // A regression among the verdicts (a function's, a benchmark metric's, or a tested common
  // shift); a suspect among them; either that fails the gate (a suspect when suspects_fail).
  bool regressed() const;
  bool suspected() const;
  bool fails() const { return regressed() || (suspects_fail && suspected()); }

  // True when more runs (up to max_units a side, or pairs) could still change the outcome: no
  // regression yet among paired runs (one there decides the gate: stop and fail fast; against a
  // stored baseline more runs may still dilute a slow spell), and some verdict is
  // inconclusive or lacks runs, and -- when max_units > 0 -- at least one of them could be
  // decided within 4 x max_units at its measured noise (units_to_decide, a rough estimate; unknown
  // counts as could).
  // Insufficient calls per run do not count: more runs would not add calls to a run. Each
  // re-comparison is one more chance for a false regression; the threshold band keeps that small
  // (an unchanged function sits a whole band away from the regression boundary).
  bool need_more_runs(int max_units = 0) const;

  // The tests worth measuring past max_runs for: inconclusive (or suspect), the estimate past the
  // regression threshold, and predicted to decide within `within_units` units at the measured
  // noise. As "function quantile", the common shift as `common_shift_label` (explain's words: stats
  // writes none). Empty once a regression decided a paired comparison.
  std::vector<std::string> suspects_decidable_within(int within_units, const std::string& common_shift_label) const;
};


// base_meta / head_meta supply the context and the declared functions (their `runs` are not
// read); the runs are passed separately so that a caller can compare a subset (e.g. only the
// successful runs, or the first N of an adaptive sequence). Functions are matched by name.
// Throws gate::Error only for invalid options.
Comparison compare(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                   const ResultFile& base_meta, const ResultFile& head_meta, const CompareOptions& options);

}  // namespace gate::stats
