// The sentences of a comparison, from the values stats/ returned (see explain.hpp).
#include "explain/explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "explain/wording.hpp"

namespace gate::explain {

namespace {

using stats::Finding;
using stats::Why;

std::string num(uint64_t v) { return std::to_string(v); }
std::string level_name(double level) { return "p" + fmt("%g", std::round(1000 * level) / 10); }

// " after Holm over 12 tests and 10 looks", " over 10 looks", or "".
std::string family_clause(const stats::QuantileComparison& qc, const std::string& looks) {
  if (qc.why.multiplicity == stats::Multiplicity::kNone || qc.why.tests <= 1)
    return looks.empty() ? std::string() : " over " + looks;
  return " after " + std::string(to_string(qc.why.multiplicity)) + " over " + std::to_string(qc.why.tests) + " tests" +
         (looks.empty() ? std::string() : " and " + looks);
}

// The part of the reason that says what is missing or what the interval shows.
std::string why_text(const stats::QuantileComparison& qc) {
  const Why& w = qc.why;
  const std::string looks = w.looks > 0 ? std::to_string(w.looks) + " looks" : "";
  const std::string shown = interval_text(qc.ci_low, qc.ci_high);
  switch (w.kind) {
    case Why::Kind::kNone: return "";
    case Why::Kind::kNotMeasurable:
      return "not measurable in " + w.side + (w.detail.empty() ? "" : ": " + w.detail);
    case Why::Kind::kNoCalls: return "no calls in " + w.side;
    case Why::Kind::kTooFewRuns:
      return "needs >= " + std::to_string(w.need_runs) + " runs a side, " + (w.side.empty() ? "" : w.side + " ") +
             "has " + std::to_string(w.have);
    case Why::Kind::kTooFewCallsPerRun:
      return qc.name + " needs >= " + num(w.need_calls) + " calls per run in >= " + std::to_string(w.need_runs) +
             " runs, " + w.side + " has " + fmt("%.0f", w.calls_per_run) + " per run (median)";
    case Why::Kind::kTooFewPairs:
      if (w.need_calls == 0)
        return "needs >= " + std::to_string(w.need_runs) + " pairs of runs, has " + std::to_string(w.have);
      return qc.name + " needs >= " + std::to_string(w.need_runs) + " pairs of runs with >= " + num(w.need_calls) +
             " calls each, has " + std::to_string(w.have);
    case Why::Kind::kTooFewMetricRuns:
      return "needs >= " + std::to_string(w.need_runs) + " runs a side with this metric, " + w.side + " has " +
             std::to_string(w.have);
    case Why::Kind::kTooFewMetricPairs:
      return "needs >= " + std::to_string(w.need_runs) + " pairs of runs with this metric, has " +
             std::to_string(w.have);
    case Why::Kind::kSameConstant: return "the same value in every run of both sides";
    case Why::Kind::kTooFewSampledRuns:
      return "needs >= " + std::to_string(w.need_runs) + " sampled runs a side with samples of it, " + w.side +
             " has " + std::to_string(w.have) + " (a longer workload, or a higher sampling.hz, gives it samples)";
    case Why::Kind::kSuspect:
      return "on its own" + (looks.empty() ? std::string() : " (" + looks + " counted)") + " its interval " +
             interval_text(w.own_low, w.own_high) + " lies above +" + percent_to_tenth(qc.band.regression) + ", but not" +
             family_clause(qc, looks) + " (adjusted p " + fmt("%.2g", qc.p_regression_adjusted) +
             " >= " + fmt("%g", w.alpha) + ", interval " + shown + "); more runs would decide";
    case Why::Kind::kAboveButWide:
      return "estimate " + fmt("%.3f", qc.ratio) + " is above +" + percent_to_tenth(qc.band.regression) +
             ", but its interval " + shown + family_clause(qc, looks) + " reaches below it; more runs would decide";
    case Why::Kind::kBelowButWide:
      return "estimate " + fmt("%.3f", qc.ratio) + " is below -" + percent_to_tenth(qc.band.improvement) +
             ", but its interval " + shown + family_clause(qc, looks) + " reaches above it; more runs would decide";
    case Why::Kind::kEquivalenceWide: {
      std::string which;
      if (w.eq_past_regression) which = "+" + percent_to_tenth(qc.band.regression);
      if (w.eq_past_improvement) which += (which.empty() ? "" : " and ") + ("-" + percent_to_tenth(qc.band.improvement));
      if (which.empty()) which = "the band";  // at the boundary, where the rounding of the two differs
      return percent_to_tenth(1 - 2 * w.equivalence_alpha) + " interval " + interval_text(qc.eq_low, qc.eq_high) +
             " reaches beyond " + which + " (unchanged needs it inside); more runs would narrow it";
    }
    case Why::Kind::kModesApart:
      return "its modes across executions moved apart by more than the band: neither unchanged nor an improvement "
             "holds for all its executions";
    case Why::Kind::kWindowMostlyProbes: {
      const double code = 1 - w.window_share;
      // The samples found less code in the window than the probe estimate leaves (a probe costs
      // more inside the window than estimated): the code's share, as measured, is said.
      const bool by_samples = w.window_share > w.probe_share + 0.005;
      return (by_samples ? "its code is ~" + fmt("%.0f%%", 100 * code) + " of its window by its CPU samples (gate's probes ~" +
                               fmt("%.0f%%", 100 * w.probe_share) + " by their measured cost, the rest unexplained)"
                         : "gate's probes are ~" + fmt("%.0f%%", 100 * w.window_share) + " of its window") +
             ", so a change of the band in its code moves the window by only " +
             fmt("%.0f%%", 100 * code) + " of it: its latency can call it unchanged only within +-" +
             percent_to_tenth(qc.band.regression * code) + (w.window_share > 0.5 ? ", and never faster" : "") +
             " (its " + percent_to_tenth(1 - 2 * w.equivalence_alpha) + " interval " +
             interval_text(qc.eq_low, qc.eq_high) + "); its cpu/call by samples speaks for its code where it "
             "runs on CPU; fewer traced callees (narrower globs, or calls: entry on them) shrink the share";
    }
    case Why::Kind::kCpuBlindToWaits:
      return "";  // said by sampled_role_note: the test is decided, only its word for the function is withheld
    case Why::Kind::kSampledFigureRuledOut:
      return "not used: its samples give " + fmt("%.1f", w.on_cpu) +
             "x its window's time a call, more than a call's CPU can be (the stacks are mis-attributed); "
             "its latency judges it";
  }
  return "";
}

}  // namespace

std::string reason(const stats::QuantileComparison& qc) {
  std::string out = why_text(qc);
  if (qc.units_to_decide > 0) {
    const std::string unit = qc.paired ? " pairs of runs" : " runs a side";
    out += qc.units_to_decide > 20 * qc.units
               ? " (the change is too close to the threshold to decide in a sensible number of runs)"
               : " (about " + std::to_string(qc.units_to_decide) + unit + " at the measured noise, " +
                     fmt("%.1f%%", 100 * qc.noise) + " per " + (qc.paired ? "pair" : "run") + ")";
  }
  // The hint's noise is per pair: an unpaired test's per-run noise is sqrt(2) smaller.
  if (qc.noise_sources) out += noise_hint(*qc.noise_sources, qc.paired ? qc.noise : std::sqrt(2.0) * qc.noise);
  return out;
}

std::string mode_window_note(const std::string& quantile, const stats::ModeWindow& w) {
  if (!w.used) return "";
  return quantile + " lies between two modes (the calls from " + level_name(w.below) + " to " + level_name(w.above) +
         " span " + duration_text(w.below_ns) + " to " + duration_text(w.above_ns) +
         "): compared by the mean of the calls from " + level_name(w.lo) + " to " + level_name(w.hi) +
         ", which moves smoothly as the mix of calls shifts";
}

namespace {
// The interval widened for the variance between layout variants (stats/layout_variance.hpp).
std::string layout_note(const stats::QuantileComparison::Layouts& l) {
  if (!(l.factor > 1.005)) return "";
  char b[200];
  std::snprintf(b, sizeof b,
                "interval %.0f%% wider for the variance between the %d code layouts its units ran (%.0f%% of its "
                "per-unit variance)",
                (l.factor - 1) * 100, l.layouts, l.share * 100);
  return b;
}

std::string pooled_note(const stats::QuantileComparison& q) {
  if (!q.pooled.used) return "";
  if (q.exact.used)
    return "one side counted no sample (base " + std::to_string(q.pooled.base_samples) + ", head " +
           std::to_string(q.pooled.head_samples) + " over " + std::to_string(q.units) +
           (q.paired ? " pairs" : " units") + "): the two counts tested exactly (binomial, given their total)";
  return "sparse samples (base " + std::to_string(q.pooled.base_samples) + ", head " +
         std::to_string(q.pooled.head_samples) + " over " + std::to_string(q.units) + (q.paired ? " pairs" : " units") +
         "): compared as the ratio of the units' mean CPU time per call, its interval from their spread, never "
         "narrower than half the counts' own noise";
}
}  // namespace

std::string noise_hint(const stats::NoiseSources& s, double noise) {
  if (!(s.sampling > 0) || !(noise > 0)) return "";
  const double share = s.sampling_share(noise);
  char b[240];
  if (s.mostly_sampling(noise)) {
    std::snprintf(b, sizeof b,
                  "; %.0f%% of that noise is which of its %.0f calls a run made: a longer workload (more of "
                  "these calls a run) would narrow it faster",
                  100 * share, s.calls_per_run);
  } else if (s.spread_over_the_run()) {
    std::snprintf(b, sizeof b,
                  "; its calls are spread over the run (%.0f%% +- %.0f%% of it): a longer workload would average "
                  "more of the machine's speed swings into each run",
                  100 * s.moment_mean, 100 * s.moment_sd);
  } else if (s.in_a_burst()) {
    std::snprintf(b, sizeof b,
                  "; its calls come in a burst (%.0f%% +- %.0f%% of the run, e.g. start-up work): each run times "
                  "one moment of the machine, so only more runs narrow it",
                  100 * s.moment_mean, 100 * s.moment_sd);
  } else {
    return "";
  }
  return b;
}

namespace {
std::string aspect_name(Finding::Aspect a) {
  switch (a) {
    case Finding::Aspect::kNone: return "";
    case Finding::Aspect::kCpuModel: return "CPU model";
    case Finding::Aspect::kCpuCount: return "CPU count";
    case Finding::Aspect::kKernel: return "kernel";
    case Finding::Aspect::kGoVersion: return "Go version";
    case Finding::Aspect::kGateVersion: return "gate version";
    case Finding::Aspect::kAttachMode: return "attach mode";
    case Finding::Aspect::kEntryPlacement: return "entry probe placement";
    case Finding::Aspect::kEntryHandling: return "entry probe handling";
  }
  return "";
}
}  // namespace

std::string finding(const Finding& f) {
  switch (f.kind) {
    case Finding::Kind::kConfigChangedSinceBaseline:
      return "the config changed since the baseline was recorded (" + f.detail + ")";
    case Finding::Kind::kContextDiffers:
      return aspect_name(f.aspect) + " differs (base: " + f.base + ", head: " + f.head +
             "): latencies may differ for reasons other than the code";
    case Finding::Kind::kConfigDiffers:
      return "config differs (base: " + f.base.substr(0, 12) + ", head: " + f.head.substr(0, 12) +
             "): the workload or the declared functions may not be the same";
    case Finding::Kind::kPartial:
      return f.side + " result is partial" + (f.detail.empty() ? std::string() : " (" + f.detail + ")") +
             (f.side == "base" ? ": it should not be a baseline" : "");
    case Finding::Kind::kNoCalls: return f.side + " recorded no calls of any compared function";
    case Finding::Kind::kCommonShift:
      return "every function moved alike: " + fmt("%.2fx", f.ratio) + " [" + fmt("%.2f", f.low) + ", " +
             fmt("%.2f", f.high) +
             "] against the base; the verdicts leave this out (a different machine or machine state, or a change "
             "that slows everything); gate ab, which runs both on one machine, tells them apart";
    case Finding::Kind::kProbeDiffers:
      return f.function + ": " + aspect_name(f.aspect) + " differs (base: " + f.base + ", head: " + f.head +
             "): the probe's own cost differs, so part of the change may be the probe's";
    case Finding::Kind::kDroppedCalls:
      return f.function + ": " + f.side + " dropped " +
             percent_to_tenth(static_cast<double>(f.count) / static_cast<double>(f.total ? f.total : 1)) + " of its calls (" +
             num(f.count) + "): latencies may be biased; fix: raise the pairing map size or trace fewer functions";
    case Finding::Kind::kUnmatchedCalls:
      return f.function + ": " + f.side + " has " + num(f.count) + " unmatched entries/returns against " +
             num(f.total) + " calls: latencies may be biased (panics, Goexit, or calls in flight at attach/detach)";
  }
  return "";
}

std::string speed_not_used(const stats::SpeedNotUsed& s) {
  switch (s.kind) {
    case stats::SpeedNotUsed::Kind::kUsed: return "";
    case stats::SpeedNotUsed::Kind::kTooFewFunctions:
      return s.side + " run " + std::to_string(s.run) + " has " + std::to_string(s.functions) +
             " functions with enough calls (>= " + std::to_string(s.needed) + " needed)";
    case stats::SpeedNotUsed::Kind::kNoRuns: return "a side has no runs";
  }
  return "";
}

std::string method(const stats::Comparison& c) {
  const stats::MethodFacts& m = c.method_facts;
  const std::string conf = percent_to_tenth(m.confidence);
  const std::string over = " over " + std::to_string(c.tests) + " tests" +
                           (m.with_benchmarks ? " (functions and benchmark metrics)" : "");
  const std::string fam =
      m.multiplicity == stats::Multiplicity::kNone ? "no multiple-testing correction"
      : m.multiplicity == stats::Multiplicity::kHolmPrimaryFirst
          ? "adjusted by weighted Holm" + over + " (the p50 tests share " + percent_to_tenth(stats::kPrimaryShare) +
                " of alpha)"
          : std::string(to_string(m.multiplicity)) + "-adjusted" + over;
  const std::string runs = c.base_runs == c.head_runs
                               ? std::to_string(c.base_runs) + " runs a side"
                               : std::to_string(c.base_runs) + " base / " + std::to_string(c.head_runs) + " head runs";
  const std::string speed_note =
      m.speed_fitted ? "each run divided by its speed factor (median shift of its other functions) to a power fitted "
                       "per function over the pairs (least squares, one degree of freedom), "
      : c.speed_normalized ? "each run divided by its speed factor (median shift of its other functions), "
      : m.normalize_speed  ? "no speed normalization (" + speed_not_used(m.speed_not_used) + "), "
                           : std::string();
  std::string out =
      (c.paired ? "paired runs: Student t over per-pair log ratios (" + runs + ", winsorized at " +
                      fmt("%g", m.outlier_sigmas) + " robust SDs), "
                : "hierarchical bootstrap over runs then calls (" + std::to_string(m.resamples) + " resamples, " +
                      runs + ", winsorized at " + fmt("%g", m.outlier_sigmas) + " robust SDs, Welch-t calibrated), ") +
      speed_note + conf + " CI of head/base; a regression needs the CI above its threshold and one-sided p < " +
      fmt("%g", (1 - m.confidence) / 2) + " " + fam +
      (m.sequential() ? " of sequential p-values (looks after " + std::to_string(m.first_look) + " to " +
                            std::to_string(m.last_look) + (c.paired ? " pairs" : " runs") + ")"
                      : std::string()) +
      "; each interval shown is bounded at the level that correction gave its test, so a regression is "
      "exactly one whose interval lies above its threshold; a suspect lies above it by its own test only"
      "; unchanged needs the " +
      percent_to_tenth(1 - 2 * m.equivalence_alpha) + " CI inside it (two one-sided tests at " +
      fmt("%g", m.equivalence_alpha) + ")";
  if (m.with_benchmarks)
    out += std::string("; Go benchmark metrics: one value per run and unit, the same interval with the default "
                       "threshold") +
           (c.speed_normalized ? ", time and throughput divided by the run's speed factor" : "");
  return out;
}

std::string method_short(const stats::Comparison& c) {
  const stats::MethodFacts& m = c.method_facts;
  return std::string(c.paired ? "paired t " : "hierarchical bootstrap ") + percent_to_tenth(m.confidence) + " CI, " +
         (c.method_facts.speed_fitted ? "speed-normalized (fitted), " : c.speed_normalized ? "speed-normalized, " : "") +
         (m.multiplicity == stats::Multiplicity::kNone ? std::string("uncorrected")
                                                       : std::string(to_string(m.multiplicity)));
}

std::string note(const stats::QuantileComparison& q) {
  std::string out = mode_window_note(q.name, q.window);
  // measure: auto's roles (issue 54): a sampled test that may only flag.
  const std::string role =
      !q.speaks && q.tested() && q.verdict != stats::Verdict::kRegression && q.verdict != stats::Verdict::kSuspect
          ? "its CPU time alone does not speak for it: most of its window is off CPU (waiting), which samples "
            "cannot see; its latency decides"
          : "";
  for (const std::string& more : {pooled_note(q), layout_note(q.layouts), role})
    if (!more.empty()) out += (out.empty() ? "" : "; ") + more;
  return out;
}

std::string benchmark_finding(const stats::BenchmarkFinding& f) {
  switch (f.kind) {
    case stats::BenchmarkFinding::Kind::kOutputLine: return f.recorded;
    case stats::BenchmarkFinding::Kind::kUnitOnlyInBase:
      return f.benchmark + ": " + f.unit + " is in base but not in head; not compared";
    case stats::BenchmarkFinding::Kind::kFoldDiffers:
      return "the " + f.recorded + "'s benchmark figures were recorded by an older gate: its units hold their executions' "
             "mean time per op, the other side's their fastest execution's, so time per op reads " +
             (f.recorded == "base" ? std::string("faster in the head") : std::string("slower in the head")) +
             " than it is by the executions' spread; measure the " + f.recorded + " again with this gate";
    case stats::BenchmarkFinding::Kind::kUnitOnlyInHead:
      return f.benchmark + ": " + f.unit + " is in head but not in base; not compared";
    case stats::BenchmarkFinding::Kind::kWallTimeUndecided:
      return f.benchmark + ": " + f.unit + " decided nothing" +
             (f.noise > 0 ? fmt(" at %.1f%% noise a pair", 100 * f.noise) : std::string()) +
             ": wall time holds every moment another process had the benchmark's CPU; CPU time per op "
             "does not (beside a build, cpu-ns/op's noise was 1-4% a pair where ns/op's was 5-50%: "
             "docs/how-it-measures.md): " +
             (f.only_benchmark ? std::string("set benchmark_cpu: true to compare it too")
                                  : std::string("benchmark_cpu: true compares it where each execution runs one "
                                                "benchmark (-test.bench matching one, -test.count 1)"));
  }
  return "";
}

std::vector<std::string> benchmark_warnings(const stats::BenchmarkComparison& b) {
  std::vector<std::string> out;
  for (const auto& f : b.findings) out.push_back(benchmark_finding(f));
  return out;
}

std::string benchmark_source(const stats::BenchmarkSource& s) {
  if (s.runs == 0) return "";
  if (s.clean_runs == 0)
    return "benchmark figures from probed executions (a result recorded before gate ran benchmarks "
           "without probes): they include the probes' cost";
  const int clean = s.clean_executions, probed = s.probed_executions;
  std::string out = "benchmark figures from " + std::to_string(clean) + " clean execution" + (clean == 1 ? "" : "s") +
                    " (no probe attached" +
                    (clean > s.clean_runs && s.fastest ? std::string("; a unit's time per op is its fastest execution's)")
                                                       : ")");
  out += probed > 0 ? "; function figures from " + std::to_string(probed) + " probed one" + (probed == 1 ? "" : "s")
                    : "; no function probed (benchmarks only)";
  const int older = s.runs - s.clean_runs;
  if (older > 0)
    out += "; " + std::to_string(older) + " run" + (older == 1 ? "" : "s") +
           " read from probed executions (an older result)";
  return out;
}

namespace {
// A metric's value as the modes' sentence says it: "631.5 MB/s", "1.23 us/op".
std::string metric_value(double v, const std::string& unit) {
  if (unit == "ns/op" || unit == "cpu-ns/op") return duration_text(v) + "/op" + (unit == "ns/op" ? "" : " CPU");
  return fmt("%.4g", v) + " " + unit;
}

// head/base as the benchmark table says it (> 1: more of the unit), from a worse-oriented ratio.
std::string change_text(double worse, double lo, double hi, bool higher_is_better) {
  if (!std::isfinite(worse)) return "";
  if (higher_is_better) return fmt("%.2fx", 1 / worse) + (std::isfinite(lo) ? " [" + fmt("%.2f", 1 / hi) + ", " + fmt("%.2f", 1 / lo) + "]" : "");
  return fmt("%.2fx", worse) + (std::isfinite(lo) ? " [" + fmt("%.2f", lo) + ", " + fmt("%.2f", hi) + "]" : "");
}
}  // namespace

std::string benchmark_modes(const stats::BenchmarkMetricComparison& m) {
  const auto& md = m.modes;
  if (!md.found()) return "";
  const std::string sides = md.base_found && md.head_found ? "both sides'" : md.base_found ? "base's" : "head's";
  std::string out = std::to_string(md.modes.size()) + " modes across " + sides + " executions:";
  const char* names[] = {"fast", "slow"};
  for (size_t i = 0; i < md.modes.size(); ++i) {
    const auto& x = md.modes[i];
    auto at = [&](double v) { return v > 0 ? metric_value(v, m.unit) : std::string("none"); };
    out += std::string(i ? ";" : "") + " " + (i < 2 ? names[i] : "other") + " " + at(x.base_value) + " -> " +
           at(x.head_value) + " (" + fmt("%.0f%%", 100 * x.base_share) + " of base's, " +
           fmt("%.0f%%", 100 * x.head_share) + " of head's executions)";
    const std::string change = change_text(x.ratio, x.ci_low, x.ci_high, m.higher_is_better);
    out += change.empty() ? ", too few units hold it to compare" : ", " + change;
  }
  const std::string other = change_text(md.other_ratio, md.other_low, md.other_high, m.higher_is_better);
  switch (md.fold) {
    case stats::BenchmarkModes::Fold::kFastest: break;
    case stats::BenchmarkModes::Fold::kFastestMode:
      out += "; the verdict rests on the fast mode (each unit's fastest execution), whose change agrees with every "
             "mode's" + (other.empty() ? std::string() : " (" + other + " with each unit's modes weighed by their share)");
      break;
    case stats::BenchmarkModes::Fold::kEveryMode:
      out += std::string("; the verdict rests on every mode (each unit's fastest execution in each mode, weighed by "
                         "the mode's share of the unit's executions), because ") +
             (md.apart ? "the modes moved apart" + (md.apart_in.empty() ? std::string() : " (in " + md.apart_in + ")")
                       : md.borrowed ? "its executions' modes show in another metric of the benchmark, not in its own values"
                                     : "the fastest executions alone disagree with it") +
             (other.empty() ? std::string() : " (the fastest executions alone: " + other + ")");
      break;
  }
  return out;
}

std::string benchmark_source(const stats::BenchmarkComparison& b) {
  const std::string base = benchmark_source(b.base_source), head = benchmark_source(b.head_source);
  return base == head || head.empty() ? base : base.empty() ? head : "base: " + base + "; head: " + head;
}

std::vector<std::string> warnings(const stats::Comparison& c, const std::vector<std::string>& notes) {
  std::vector<std::string> out;
  for (const auto& f : c.findings)
    if (f.kind != Finding::Kind::kConfigChangedSinceBaseline) out.push_back(finding(f));
  const auto& bm = c.benchmarks;
  for (const auto& name : bm.only_in_base)
    out.push_back("benchmark " + name + " ran in base but not in head: not compared (renamed, removed, or "
                  "no longer matched by -test.bench?)");
  for (const auto& name : bm.only_in_head)
    out.push_back("benchmark " + name + " ran in head but not in base: not compared (new, or renamed?)");
  for (const auto& f : bm.findings)
    out.push_back((f.kind == stats::BenchmarkFinding::Kind::kWallTimeUndecided ? "benchmark " : "benchmark output: ") +
                  benchmark_finding(f));
  if (!bm.without_results.empty())
    out.push_back(bm.without_results +
                  " holds no benchmark results: benchmarks are not compared (was it recorded without benchmarks: go?)");
  out.insert(out.end(), notes.begin(), notes.end());
  // Said last, where gate check has always said it (verdict::settle adds it after the runner's notes).
  for (const auto& f : c.findings)
    if (f.kind == Finding::Kind::kConfigChangedSinceBaseline) out.push_back(finding(f));
  return out;
}

std::string noisy_shard(int index, const std::string& hostname, double times_median, double weight) {
  char text[96];
  std::snprintf(text, sizeof text, "%.1fx as noisy as the median shard", times_median);
  std::string effect = "its pairs widen every interval";
  if (weight >= 0) {
    char w[64];
    std::snprintf(w, sizeof w, "its pairs weigh %.2f of the estimates", weight);
    effect = w;
  }
  return "shard " + std::to_string(index) + " (" + hostname + ") was " + text + ": " + effect;
}

}  // namespace gate::explain
