// The sampled instrument in the verdict (issue 39), without a kernel: synthetic runs whose probed
// latencies are the probes' (unchanged by a change to the function's own work) and whose CPU samples
// carry the function's own time. The choice of instrument, the cpu/call test and its verdicts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "explain/explain.hpp"
#include "profile/function_samples.hpp"
#include "stats/benchmark_tests.hpp"
#include "stats/distributions.hpp"
#include "stats/instrument.hpp"
#include "synthetic.hpp"
#include "verdict/benchmark_family.hpp"
#include "verdict/instruments.hpp"
#include "verdict/layouts.hpp"

namespace gate {
namespace {

constexpr uint64_t kPeriodNs = 200'000;  // 4999 Hz, rounded

// Adds CPU samples to `fn` in each run: its own time per call `own_ns` (times `scale`, times the
// run's machine-speed factor `speed[r]`) over its calls, Poisson-drawn; the probes' samples are
// `probe_share` of the whole.
void add_samples(std::vector<RunResult>& runs, const std::string& fn, double own_ns, double scale,
                 double probe_share, const std::vector<double>& speed, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t r = 0; r < runs.size(); ++r) {
    runs[r].sample_period_ns = kPeriodNs;
    for (auto& f : runs[r].functions) {
      if (f.name != fn) continue;
      const double expected = static_cast<double>(f.calls) * own_ns * scale * speed[r] / kPeriodNs;
      f.cpu_samples = f.self_samples = std::poisson_distribution<uint64_t>(expected)(rng);
      f.probe_samples = std::poisson_distribution<uint64_t>(expected * probe_share / (1 - probe_share))(rng);
    }
  }
}

struct Sides {
  std::vector<RunResult> base, head;
  ResultFile meta;
};

// 20 pairs of 6 functions; "main.hot" is called 100,000 times a run with 2 us of its own work and
// reads 10 us a call through its probes (8 us of probes: 80% of its samples); head does `scale` times its own work. Both sides meet the
// same machine state in pair r (1.4x slow spells), as gate ab's pairs do.
Sides make_sides(double scale, uint64_t seed, int pairs = 20) {
  auto fns = testing::synthetic_functions(5);
  fns.push_back({"main.hot", 10'000, 0.2, 100'000, 1.0});
  testing::SyntheticNoise noise;
  noise.shared_per_run = true;
  noise.slow_fraction = 0.3;
  noise.machine_seed = seed * 7 + 1;
  Sides s;
  s.base = testing::synthetic_runs(fns, pairs, noise, seed, "base");
  s.head = testing::synthetic_runs(fns, pairs, noise, seed + 1000, "head");
  std::mt19937_64 rng(noise.machine_seed);
  std::vector<double> speed(pairs);
  for (auto& x : speed) x = std::uniform_real_distribution<double>(0, 1)(rng) < 0.3 ? 1.4 : 1.0;
  add_samples(s.base, "main.hot", 2000, 1.0, 0.8, speed, seed + 1);
  add_samples(s.head, "main.hot", 2000, scale, 0.8, speed, seed + 2);
  s.meta = testing::synthetic_meta(fns);
  return s;
}

stats::CompareOptions options() {
  stats::CompareOptions o;
  o.thresholds.defaults = {0.05, 0.05};
  return o;
}

const stats::FunctionComparison& hot(const stats::Comparison& c) {
  for (const auto& f : c.functions)
    if (f.name == "main.hot") return f;
  throw std::runtime_error("main.hot not compared");
}

TEST(Instrument, AutoChoosesSamplesWhereProbesDominateAndCatchesAChangeTheProbesHide) {
  int caught = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const Sides s = make_sides(1.15, seed);
    const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, options());
    const auto& f = hot(c);
    ASSERT_EQ(f.instrument, 1) << "auto should measure a function whose probes are 80% of its samples by samples";
    ASSERT_EQ(f.quantiles.size(), 1u);
    EXPECT_EQ(f.quantiles[0].name, stats::kSampledTestName);
    EXPECT_NEAR(f.probe_share, 0.8, 0.05);
    EXPECT_NEAR(f.quantiles[0].ratio, 1.15, 0.05) << "seed " << seed;
    caught += f.verdict == stats::Verdict::kRegression;
  }
  // 20 pairs, ~1,000 samples a unit (3% sampling error), a 15% change against a 5% band.
  EXPECT_EQ(caught, 10);
}

TEST(Instrument, AutoAaFlagsNothing) {
  int covers = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const Sides s = make_sides(1.0, seed);
    const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, options());
    EXPECT_EQ(c.counts.regression, 0) << "seed " << seed;
    EXPECT_EQ(c.counts.suspect, 0) << "seed " << seed;
    const auto& q = hot(c).quantiles.at(0);
    EXPECT_LT(q.ci_high - q.ci_low, 0.12) << "seed " << seed << ": ~1,000 samples a unit, 20 pairs";
    covers += q.ci_low <= 1.0 && q.ci_high >= 1.0;
  }
  // A 95% interval misses the truth now and then: at most two of ten here (seeded, so the same each time).
  EXPECT_GE(covers, 8);
}

TEST(Instrument, ProbesSettingKeepsTheLatencyTests) {
  const Sides s = make_sides(1.15, 3);
  auto o = options();
  o.measure["main.hot"] = static_cast<uint8_t>(stats::MeasureSetting::kProbes);
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, o);
  const auto& f = hot(c);
  EXPECT_EQ(f.instrument, 0);
  ASSERT_NE(f.find("p50"), nullptr);
  EXPECT_NE(f.verdict, stats::Verdict::kRegression) << "the probes' latencies did not move";
}

TEST(Instrument, UnsampledRunsStayOnProbes) {
  Sides s = make_sides(1.15, 4);
  for (auto* side : {&s.base, &s.head})
    for (auto& r : *side) r.sample_period_ns = 0;
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, options());
  EXPECT_EQ(hot(c).instrument, 0);
  EXPECT_LT(hot(c).probe_share, 0) << "no probe share without samples";
}

TEST(Instrument, ChoiceRules) {
  const stats::InstrumentRule rule;
  stats::InstrumentFacts f;
  f.sampled = true;
  f.latency_timed = true;
  f.probe_share = 0.5;
  f.on_cpu = 0.9;
  f.samples_per_unit = 500;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kSamples);
  f.probe_share = 0.1;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes);
  f.probe_share = 0.5;
  f.on_cpu = 0.03;  // waits: only probes see that time
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes);
  f.on_cpu = 0.45;  // preempted on a loaded runner: still CPU-bound
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kSamples);
  // Relative to the most CPU-bound function of the same units: at load 10 on 2 vCPUs a CPU-bound
  // function is on CPU ~0.2 of its probed time, and so is the reference; one at a tenth of that waits.
  stats::InstrumentRule loaded = rule;
  loaded.on_cpu_reference = 0.2;
  f.on_cpu = 0.18;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, loaded), stats::Instrument::kSamples);
  f.on_cpu = 0.06;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, loaded), stats::Instrument::kProbes);
  stats::InstrumentRule idle = rule;
  idle.on_cpu_reference = 0.95;
  f.on_cpu = 0.3;  // on an idle host, off CPU 70% of its time: it waits
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, idle), stats::Instrument::kProbes);
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, loaded), stats::Instrument::kSamples);
  f.on_cpu = 0.03;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes);
  f.on_cpu = 0.9;
  f.samples_per_unit = 3;  // too few samples to measure it
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes);
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kSamples, f, rule), stats::Instrument::kSamples);
  f.latency_timed = false;  // calls: entry
  f.samples_per_unit = 500;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kSamples);
  f.sampled = false;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes);
  EXPECT_THROW(stats::parse_measure_setting("sampled"), Error);
}

// A function short of samples in the first units reaches them in units of more executions: the
// choice counts the planned units' samples, and executions_for_samples says how many it takes.
TEST(Instrument, PlannedUnitsCountTheirSamples) {
  stats::InstrumentRule rule;
  stats::InstrumentFacts f;
  f.sampled = f.latency_timed = true;
  f.probe_share = 0.6;
  f.on_cpu = 0.9;
  f.samples_per_unit = f.samples_per_execution = 7;  // the shop's pricing.Apply, one execution a unit
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes);
  EXPECT_EQ(stats::executions_for_samples(f, rule), 29) << "ceil(200 / 7)";
  rule.planned_executions = 29;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kSamples);
  rule.planned_executions = 14;  // 98 samples a unit: below the floor
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes);
  f.probe_share = 0.1;  // its probes do not dominate it: no unit length makes it a sampled function
  EXPECT_EQ(stats::executions_for_samples(f, rule), 0);
  f.probe_share = 0.6;
  f.on_cpu = 0.01;  // it waits
  EXPECT_EQ(stats::executions_for_samples(f, rule), 0);
  f.on_cpu = 0.9;
  f.latency_timed = false;  // calls: entry: samples already, whatever the count
  EXPECT_EQ(stats::executions_for_samples(f, rule), 0);
}

// Synthetic sides whose main.hot gets `own_ns` of CPU a call (100,000 calls a run), executions of
// `execution_s` probed seconds each.
Sides sparse_sides(double own_ns, double execution_s, uint64_t seed, double head_scale = 1.0) {
  Sides s = make_sides(1.0, seed, 5);
  std::vector<double> speed(5, 1.0);
  add_samples(s.base, "main.hot", own_ns, 1.0, 0.998, speed, seed + 1);
  add_samples(s.head, "main.hot", own_ns, head_scale, 0.998, speed, seed + 2);
  for (auto* side : {&s.base, &s.head})
    for (auto& r : *side) r.duration_s = execution_s;
  return s;
}

TEST(Instrument, SampleSizedExecutionsGrowUnitsWithinTheCap) {
  runner::Config cfg;
  const auto o = options();
  // 100,000 calls x 14 ns / 200 us: ~7 samples an execution of 0.2 s: ~29 executions (5.8 s) for 200.
  Sides s = sparse_sides(14, 0.2, 11);
  auto sizing = verdict::sample_sized_executions(cfg, s.base, s.head, o, verdict::kMaxSampledUnitSeconds);
  // Sized for the sparser side: ~7 a side, one side's Poisson count lower (200 / 3 at the most).
  EXPECT_GE(sizing.executions, 20);
  EXPECT_LE(sizing.executions, 67);
  ASSERT_EQ(sizing.functions.size(), 1u);
  EXPECT_EQ(sizing.functions[0].first, "main.hot");
  EXPECT_NE(verdict::describe_sizing(sizing).find("main.hot"), std::string::npos) << verdict::describe_sizing(sizing);
  // The functions counted by entry only are chosen with the planned units, not the first pair's.
  EXPECT_TRUE(verdict::entry_counted_after_first_pair(cfg, s.base, s.head, o).empty());
  const auto names = verdict::entry_counted_after_first_pair(cfg, s.base, s.head, o, sizing.executions);
  EXPECT_EQ(names, (std::vector<std::string>{"main.hot"}));
  // 1 s executions: the 10 s cap gives 10 executions, ~70 samples: below the floor, stays on probes.
  s = sparse_sides(14, 1.0, 12);
  sizing = verdict::sample_sized_executions(cfg, s.base, s.head, o, verdict::kMaxSampledUnitSeconds);
  EXPECT_EQ(sizing.executions, 0);
  ASSERT_EQ(sizing.too_sparse.size(), 1u);
  EXPECT_NE(verdict::describe_too_sparse(sizing, sizing.too_sparse[0]).find("stays on probes"),
            std::string::npos);
  // Enough samples already (the default sides: ~1,000 a unit): nothing to grow.
  s = make_sides(1.0, 13, 5);
  EXPECT_EQ(verdict::sample_sized_executions(cfg, s.base, s.head, o, verdict::kMaxSampledUnitSeconds).executions, 0);
  // Apart (sampled executions without probes): as many as fit in 10 s at the trial's bare time.
  s = sparse_sides(14, 2.0, 15);
  sizing = verdict::sample_sized_executions(cfg, s.base, s.head, o, verdict::kMaxSampledUnitSeconds, true, 0.3);
  EXPECT_TRUE(sizing.apart);
  EXPECT_EQ(sizing.cap, 33) << "floor(10 s / 0.3 s)";
  EXPECT_GE(sizing.executions, 20);
  EXPECT_LE(sizing.executions, 33);
  sizing = verdict::sample_sized_executions(cfg, s.base, s.head, o, verdict::kMaxSampledUnitSeconds, true, 1.5);
  EXPECT_EQ(sizing.executions, 0) << "6 bare executions: ~42 samples, below the floor";
  EXPECT_EQ(sizing.too_sparse.size(), 1u);
  // A service's rounds are not resized.
  s = sparse_sides(14, 0.2, 14);
  cfg.service = runner::ServiceSpec{};
  EXPECT_EQ(verdict::sample_sized_executions(cfg, s.base, s.head, o, verdict::kMaxSampledUnitSeconds).executions, 0);
}

// Below the sample floor, a first pair whose samples read a change far beyond the band still picks
// samples (the shop's pricing.Apply under issue 34's loop: 6 samples an execution at base, 55 at
// head, probes reading 1.10x); an A/A, a change within the band's reach of the counting noise, or a
// side that would count too few samples a unit do not.
TEST(Instrument, DecisiveBelowTheFloor) {
  stats::InstrumentRule rule;
  rule.planned_executions = 3;
  stats::InstrumentFacts f;
  f.sampled = f.latency_timed = true;
  f.probe_share = 0.9;
  f.on_cpu = 0.9;
  f.side_calls[0] = f.side_calls[1] = 1770;
  f.side_samples[0] = 6;
  f.side_samples[1] = 55;
  f.side_samples_per_execution[0] = 6;
  f.side_samples_per_execution[1] = 55;
  f.samples_per_execution = f.samples_per_unit = 30.5;  // 91.5 a planned unit: below 100
  const stats::Band band{0.10, 0.10};
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes)
      << "no band: no decisive case (gate run, or a first pair that is in the tests)";
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kSamples);
  EXPECT_NEAR(stats::first_pair_ratio(f), 55.0 / 6, 1e-9);
  // Given 61 samples, the head's count at the band's edge is binomial(61, 1.1 / 2.1): P(X >= 55),
  // summed here term by term, said as a normal z (about 6.2; the log ratio's normal approximation
  // said 4.9).
  auto upper_tail = [](int n, int k, double p) {
    double sum = 0;
    for (int x = k; x <= n; ++x) sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(x + 1.0) - std::lgamma(n - x + 1.0) +
                                                 x * std::log(p) + (n - x) * std::log1p(-p));
    return sum;
  };
  const double p55 = upper_tail(61, 55, 1.1 / 2.1);
  EXPECT_NEAR(stats::sds_beyond_band(f, band), -stats::normal_quantile(p55), 1e-6);
  EXPECT_GT(stats::sds_beyond_band(f, band), 5.5);
  f.side_samples_per_execution[0] = 0.3;  // 0.9 a unit, 4.5 over the 5 pairs: too few for the test
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kProbes);
  rule.decisive_pairs = 6;  // 5.4 over 6 pairs
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kSamples);
  rule.decisive_pairs = 5;
  f.side_samples_per_execution[0] = 6;
  // With the trial's executions known, a side's rate is (count + 0.5) / executions: a base trial
  // execution that counted none is 0.5 an execution (1.5 a unit of 3, 7.5 over 5 pairs), not 0.
  f.side_executions[0] = f.side_executions[1] = 1;
  EXPECT_DOUBLE_EQ(stats::smaller_side_samples_per_unit(f, rule), 6.5 * 3);
  f.side_samples[0] = 0;
  EXPECT_DOUBLE_EQ(stats::smaller_side_samples_per_unit(f, rule), 0.5 * 3);
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kSamples);
  rule.planned_executions = 1;  // 2.5 over 5 pairs
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kProbes);
  rule.planned_executions = 3;
  f.side_samples[0] = 6;
  f.side_executions[0] = f.side_executions[1] = 0;
  f.side_samples[1] = 14;  // 2.3x on 6 and 14 samples: 1.5 sd beyond the band
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kProbes);
  f.side_samples[1] = 6;  // A/A
  EXPECT_LT(stats::sds_beyond_band(f, band), 0);
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kProbes);
  f.side_samples[0] = 55;  // head 9x faster: an improvement as decisive
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kSamples);
  f.side_samples[0] = 0;  // no base sample: no ratio, but the binomial still reads: P(X >= 55 of 55)
  f.side_samples[1] = 55;
  EXPECT_TRUE(std::isnan(stats::first_pair_ratio(f)));
  EXPECT_NEAR(stats::sds_beyond_band(f, band), -stats::normal_quantile(std::pow(1.1 / 2.1, 55)), 1e-6);
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kSamples);
  f.side_samples[1] = 2;  // 0 against 2: 0.27 of being this far at the edge, not decisive
  EXPECT_LT(stats::sds_beyond_band(f, band), 1);
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kProbes);
  f.side_samples[1] = 0;  // no sample at all
  EXPECT_TRUE(std::isnan(stats::sds_beyond_band(f, band)));
  f.side_samples[0] = 6;
  f.side_samples[1] = 55;
  f.side_samples[1] = 55;
  // Off CPU for most of its probed time (on a VM, the probe traps in its window no sample sees; or
  // it waits): a change its samples show this clearly is in its CPU time all the same.
  f.on_cpu = 0.01;
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kSamples);
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule), stats::Instrument::kProbes);
  EXPECT_EQ(stats::executions_for_samples(f, rule), 0);
  EXPECT_EQ(stats::executions_for_samples(f, rule, &band), 34) << "ceil(200 / 6): for the sparser side";
  f.probe_share = 0.1;  // the probes do not dominate it: they measure it
  EXPECT_EQ(stats::choose_instrument(stats::MeasureSetting::kAuto, f, rule, &band), stats::Instrument::kProbes);
  EXPECT_EQ(stats::executions_for_samples(f, rule, &band), 0);
}

// Where the first units ran a trial execution without probes (gate ab's first pair), the counts
// come from it: a short function's probed count overstates what executions without probes count
// (the shop's pricing.Apply: ~12 self samples a probed execution, ~0.3 a bare one).
TEST(Instrument, CountsFromTheTrialExecutionWithoutProbes) {
  Sides s = sparse_sides(14, 0.2, 41, 8.0);  // ~7 self samples an execution at base, ~56 at head
  stats::InstrumentFacts probed = stats::instrument_facts(s.base, s.head, "main.hot");
  EXPECT_GT(probed.samples_per_execution, 15);
  for (auto* side : {&s.base, &s.head}) {
    RunResult& first = side->front();
    first.trial_executions = 1;
    for (auto& f : first.functions)
      if (f.name == "main.hot") f.trial_self_samples = side == &s.base ? 1 : 4;
  }
  const stats::InstrumentFacts f = stats::instrument_facts(s.base, s.head, "main.hot");
  EXPECT_DOUBLE_EQ(f.samples_per_execution, 2.5) << "(1 + 4) / 2 trial executions";
  EXPECT_EQ(f.side_samples[0], 1u);
  EXPECT_EQ(f.side_samples[1], 4u);
  EXPECT_DOUBLE_EQ(f.side_samples_per_execution[0], 1);
  EXPECT_EQ(f.samples_per_unit, probed.samples_per_unit) << "the unit's own count stays the unit's";
  EXPECT_EQ(f.probe_share, probed.probe_share) << "the probe share needs the probes: the probed execution's";
  // 1 sample a bare execution: 3 s of 0.3 s executions (10) count 10 a unit, below the floor; and
  // 4x on 1 and 4 samples is no decisive first pair (log 4 - log 1.1 = 1.29, sd 1.12: 1.2 sd).
  const auto sizing = verdict::sample_sized_executions(runner::Config{}, s.base, s.head, options(),
                                                       verdict::kMaxSampledApartSeconds, true, 0.3);
  EXPECT_TRUE(sizing.functions.empty());
  ASSERT_EQ(sizing.too_sparse.size(), 1u);
  EXPECT_DOUBLE_EQ(sizing.too_sparse[0].per_execution, 2.5);
  // The line says each side's count behind the pooled one.
  const std::string line = verdict::describe_too_sparse(sizing, sizing.too_sparse[0]);
  EXPECT_NE(line.find("main.hot stays on probes: 2.5 samples an execution (base 1.0, head 4.0), "), std::string::npos)
      << line;
}

// The same through gate ab's sizing and verdict: sampled apart, a head 8x the base's own time whose
// units stay below the floor is sized and measured by samples when its first pair is a pilot, and
// stays on probes when that pair is in the tests.
TEST(Instrument, DecisiveBelowTheFloorThroughSizingAndVerdict) {
  runner::Config cfg;
  const auto o = options();
  // 100,000 calls x 14 ns / 200 us: ~7 samples an execution at base, ~56 at head; 2 bare executions
  // a unit (3 s / 1.5 s): ~63 a unit pooled, below 100.
  Sides s = sparse_sides(14, 2.0, 31, 8.0);
  auto sizing = verdict::sample_sized_executions(cfg, s.base, s.head, o, verdict::kMaxSampledApartSeconds, true, 1.5);
  EXPECT_TRUE(sizing.too_sparse.empty());
  ASSERT_EQ(sizing.decisive.size(), 1u);
  EXPECT_EQ(sizing.decisive[0].function, "main.hot");
  EXPECT_GT(sizing.decisive[0].ratio, 4);
  EXPECT_GT(sizing.decisive[0].sds, 3);
  EXPECT_EQ(sizing.executions, 2);
  EXPECT_NE(verdict::describe_sizing(sizing).find("main.hot by samples because its first pair's samples read"),
            std::string::npos)
      << verdict::describe_sizing(sizing);
  // Not apart (the probed units would grow): the first pair need not be a pilot, so no decisive case.
  sizing = verdict::sample_sized_executions(cfg, s.base, s.head, o, 2 * 2.0);
  EXPECT_TRUE(sizing.decisive.empty());
  // The verdict: the first pair a pilot (gate ab marks it) gives samples; in the tests, probes. The
  // later units have the sizing's 2 sampled executions (their samples are not doubled here: both
  // sides alike, the choice does not look at them).
  for (auto* side : {&s.base, &s.head})
    for (size_t i = 1; i < side->size(); ++i) {
      (*side)[i].sampled_executions = 2;
      (*side)[i].probed_executions = 1;
    }
  stats::Comparison c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, options());
  EXPECT_EQ(hot(c).instrument, 0) << "the first pair is in the tests: it may not choose by its reading";
  s.base.front().pilot = s.head.front().pilot = true;
  c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, options());
  EXPECT_EQ(hot(c).instrument, static_cast<uint8_t>(stats::Instrument::kSamples));
}

// After units grew, the first pair's smaller units (a few samples, probes still on) are left out of
// the cpu/call test: a first pair reading 3x does not move the ratio or widen the interval.
TEST(Instrument, SampledTestLeavesOutTheSmallerFirstUnits) {
  Sides s = make_sides(1.0, 21, 12);
  for (auto* side : {&s.base, &s.head})
    for (size_t r = 0; r < side->size(); ++r) (*side)[r].executions = r == 0 ? 1 : 8;
  for (auto& f : s.head.front().functions)
    if (f.name == "main.hot") f.self_samples *= 3;
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, options());
  const auto& q = hot(c).quantiles.at(0);
  EXPECT_EQ(q.name, stats::kSampledTestName);
  EXPECT_EQ(q.units, 11) << "the first pair left out";
  EXPECT_NEAR(q.ratio, 1.0, 0.04);
  EXPECT_EQ(hot(c).verdict == stats::Verdict::kRegression || hot(c).verdict == stats::Verdict::kSuspect, false);
}

// The reference is the busiest timed function (the most samples) with enough samples: its sampled
// time over its probed time in both sides' first units, capped at 1; functions below the sample
// floor, untimed (`calls: entry`) or unsampled units do not count.
TEST(Instrument, OnCpuReferenceIsTheBusiestTimedFunction) {
  auto unit = [](const char* side) {
    RunResult r;
    r.variant = side;
    r.sample_period_ns = 1000;
    auto add = [&](const char* name, uint64_t samples, uint64_t probed_ns, bool timed) {
      FunctionRun f;
      f.name = name;
      f.calls = 10;
      f.sum_ns = probed_ns;
      f.cpu_samples = samples;
      if (timed) f.histogram.add(probed_ns / 10, 10);
      r.functions.push_back(f);
    };
    add("waits", 100, 1'000'000, true);    // 0.1
    add("busy", 200, 800'000, true);       // 0.25: the busiest timed function
    add("short", 150, 50'000, true);       // 3.0: probe handling outside its window in its samples
    add("few", 5, 1'000, true);            // 5.0, but 5 samples a unit
    add("entry", 900, 0, false);           // counted, not timed
    return std::vector<RunResult>{r};
  };
  const auto base = unit("base"), head = unit("head");
  stats::InstrumentRule rule;
  EXPECT_DOUBLE_EQ(stats::on_cpu_reference(base, head, rule), 0.25);
  auto unsampled = head;
  unsampled[0].sample_period_ns = 0;
  EXPECT_EQ(stats::on_cpu_reference(base, unsampled, rule), 0);
  auto fast = unit("fast");
  fast[0].functions[1].sum_ns = 100'000;  // busy: 200 us sampled over 100 us probed: capped at 1
  EXPECT_DOUBLE_EQ(stats::on_cpu_reference(fast, fast, rule), 1.0);
  auto quiet = unit("quiet");
  quiet[0].functions[2].cpu_samples = 300;  // short becomes the busiest: its 6.0 capped at 1
  EXPECT_DOUBLE_EQ(stats::on_cpu_reference(quiet, quiet, rule), 1.0);
  quiet[0].functions[2].histogram = LatencyHistogram{};  // ... but untimed (calls: entry): busy again
  EXPECT_DOUBLE_EQ(stats::on_cpu_reference(quiet, quiet, rule), 0.25);
}

TEST(Instrument, TooFewSampledRunsIsInsufficientData) {
  Sides s = make_sides(1.15, 5);
  for (size_t r = 2; r < s.head.size(); ++r) {  // not sampled (a unit sampled that counted none is a zero)
    s.head[r].sample_period_ns = 0;
    for (auto& f : s.head[r].functions) f.cpu_samples = f.self_samples = 0;
  }
  auto o = options();
  o.measure["main.hot"] = static_cast<uint8_t>(stats::MeasureSetting::kSamples);
  const auto c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, o);
  const auto& q = hot(c).quantiles.at(0);
  EXPECT_EQ(q.verdict, stats::Verdict::kInsufficientData);
  EXPECT_EQ(q.why.kind, stats::Why::Kind::kTooFewSampledRuns);
  EXPECT_NE(explain::reason(q).find("sampled runs"), std::string::npos) << explain::reason(q);
}

// pooled_count_ratio on hand counts: the ratio of the sides' means, the linearized variance of
// the pairs, and the floor (half the counts' Poisson sd) when the pairs agree better than their
// counts can.
TEST(PooledCounts, RatioAndIntervalByHand) {
  // Equal speed, equal calls: values in ns per call; counts beside them.
  std::vector<stats::CountedUnit> b = {{0, 0, 0, 0}, {1, 200, 0, 1}, {2, 400, 0, 2}, {3, 200, 0, 1}, {4, 200, 0, 1}};
  std::vector<stats::CountedUnit> h = {{0, 5000, 0, 25}, {1, 6000, 0, 30}, {2, 5600, 0, 28}, {3, 4400, 0, 22},
                                       {4, 5000, 0, 25}};
  int units = 0;
  const stats::RatioInterval r = stats::pooled_count_ratio(b, h, 0.95, true, &units);
  EXPECT_EQ(units, 5);
  const double bm = 1000.0 / 5, hm = 26000.0 / 5;
  EXPECT_NEAR(r.ratio, hm / bm, 1e-9) << "26 x: the zero unit counts as the zero it is";
  double ss = 0;
  for (size_t k = 0; k < 5; ++k) ss += std::pow(h[k].ns_per_call / hm - b[k].ns_per_call / bm, 2);
  const double var = ss / 4 / 5;  // > (1/5 + 1/130) / 4: the spread decides
  EXPECT_GT(var, (1.0 / 5 + 1.0 / 130) / 4);
  EXPECT_NEAR(r.log_scale, std::sqrt(var), 1e-12);
  EXPECT_DOUBLE_EQ(r.df, 4);
  const double t = stats::student_t_quantile(0.975, 4);
  EXPECT_NEAR(r.ci_low, r.ratio * std::exp(-t * std::sqrt(var)), 1e-9);
  // Pairs in lockstep (each head unit 26x its base's): no spread, so the counts' Poisson noise.
  std::vector<stats::CountedUnit> b2 = {{0, 100, 0, 1}, {1, 200, 0, 2}, {2, 100, 0, 1}};
  std::vector<stats::CountedUnit> h2 = {{0, 2600, 0, 26}, {1, 5200, 0, 52}, {2, 2600, 0, 26}};
  const stats::RatioInterval r2 = stats::pooled_count_ratio(b2, h2, 0.95, true, &units);
  EXPECT_NEAR(r2.ratio, 26, 1e-9);
  EXPECT_NEAR(r2.log_scale, std::sqrt(1.0 / 4 + 1.0 / 104) / 2, 1e-12);
  // Speed factors divide the values: a unit that ran 2x slow (log offset ln 2) reads half.
  b2[1].log_offset = h2[1].log_offset = std::log(2.0);
  EXPECT_NEAR(stats::pooled_count_ratio(b2, h2, 0.95, true, &units).ratio, 26, 1e-9);
  // Pairs match by run: unit 2 of base has no head partner.
  h2.pop_back();
  stats::pooled_count_ratio(b2, h2, 0.95, true, &units);
  EXPECT_EQ(units, 2);
  // No sample on a side: no ratio.
  for (auto& u : b) u.samples = 0, u.ns_per_call = 0;
  EXPECT_EQ(stats::pooled_count_ratio(b, h, 0.95, true, &units).ratio, 0);
}

// The pooled interval holds its level on sparse overdispersed counts: 4,000 synthetic A/As of 10
// pairs (base and head ~2 samples a unit, both scaled by the pair's shared speed, 1.4x in 30% of
// pairs, and by their own 20% gamma noise) exclude 1 from their 95% interval in about 5% of cases,
// and a 3x head is caught in most. Deterministic: a fixed seed.
TEST(PooledCounts, HoldsItsLevelOnSparseOverdispersedCounts) {
  std::mt19937_64 rng(2026);
  auto draw = [&](double mean) {
    const double g = std::gamma_distribution<double>(25, 1.0 / 25)(rng);  // sd 20%
    return std::poisson_distribution<uint64_t>(mean * g)(rng);
  };
  auto trial = [&](double head_scale) {
    std::vector<stats::CountedUnit> b, h;
    for (size_t k = 0; k < 10; ++k) {
      const double speed = std::uniform_real_distribution<double>(0, 1)(rng) < 0.3 ? 1.4 : 1.0;
      const uint64_t cb = draw(2 * speed), ch = draw(2 * speed * head_scale);
      b.push_back({k, 1000.0 * static_cast<double>(cb), 0, cb});
      h.push_back({k, 1000.0 * static_cast<double>(ch), 0, ch});
    }
    int units = 0;
    return stats::pooled_count_ratio(b, h, 0.95, true, &units);
  };
  int excluded = 0, valid = 0, caught = 0;
  for (int i = 0; i < 4000; ++i) {
    const auto r = trial(1.0);
    if (!(r.ratio > 0)) continue;  // a side counted none (e^-20 per side: never here)
    ++valid;
    excluded += r.ci_low > 1 || r.ci_high < 1;
  }
  for (int i = 0; i < 200; ++i) caught += trial(3.0).ci_low > 1.05;
  EXPECT_EQ(valid, 4000);
  const double rate = static_cast<double>(excluded) / valid;
  EXPECT_GT(rate, 0.025) << "the interval is wider than its level needs";
  EXPECT_LT(rate, 0.075) << "the interval is too narrow for sparse counts";
  EXPECT_GT(caught, 150) << "3x on ~20 base samples should be caught";
}

// Through the verdict: a base of ~1 sample a unit (some units none) against a head 40x as busy is
// compared by pooled counts and flagged; an A/A of the same sparse counts is not. The unit with no
// base sample is in the test (the log per unit left such units out and read the ratio high).
TEST(Instrument, SparseCountsArePooled) {
  auto o = options();
  o.measure["main.hot"] = static_cast<uint8_t>(stats::MeasureSetting::kSamples);
  // 100,000 calls x 2 ns / 200 us: ~1 sample a unit at base.
  Sides s = sparse_sides(2, 1.0, 41, 40.0);
  int zero_units = 0;
  for (const auto& r : s.base)
    if (const FunctionRun* f = r.find("main.hot"); f && f->self_samples == 0) ++zero_units;
  stats::Comparison c = verdict::compare_with_benchmarks(s.base, s.head, s.meta, s.meta, o);
  const auto& q = hot(c).quantiles.at(0);
  EXPECT_TRUE(q.pooled.used);
  EXPECT_EQ(q.base_runs_used, 5) << zero_units << " units counted none: still in the test";
  EXPECT_EQ(q.verdict, stats::Verdict::kRegression) << explain::reason(q);
  EXPECT_NE(explain::note(q).find("sparse samples (base "), std::string::npos) << explain::note(q);
  // A/A at the same counts, over 20 pairs: not a regression.
  Sides more = make_sides(1.0, 43, 20);
  std::vector<double> speed(20, 1.0);
  add_samples(more.base, "main.hot", 2, 1.0, 0.998, speed, 44);
  add_samples(more.head, "main.hot", 2, 1.0, 0.998, speed, 45);
  c = verdict::compare_with_benchmarks(more.base, more.head, more.meta, more.meta, o);
  const auto& qa = hot(c).quantiles.at(0);
  EXPECT_TRUE(qa.pooled.used);
  EXPECT_NE(qa.verdict, stats::Verdict::kRegression) << explain::reason(qa);
  EXPECT_GT(qa.ci_high, 1) << qa.ci_low << " " << qa.ci_high;
  EXPECT_LT(qa.ci_low, 1);
}

// samples_by_function over a hand-made profile: inclusive, once per sample, probes apart.
TEST(FunctionSamples, InclusiveOncePerSampleProbesApart) {
  profile::Profile p;
  auto loc = [&](std::vector<std::pair<std::string, bool>> frames) {
    profile::Location l;
    for (auto& [name, inl] : frames) l.frames.push_back({name, "", 0, 0, inl});
    p.locations.push_back(l);
    return static_cast<uint32_t>(p.locations.size() - 1);
  };
  const uint32_t probe = loc({{profile::kGateProbeFrame, false}});
  const uint32_t leaf = loc({{"main.leaf", true}, {"main.mid", false}});  // leaf inlined into mid
  const uint32_t mid = loc({{"main.mid", false}});
  const uint32_t top = loc({{"main.top", false}});
  p.samples.push_back({{leaf, top}, 7});
  p.samples.push_back({{mid, mid, top}, 5});  // recursion: counts once
  p.samples.push_back({{probe, mid, top}, 11});
  p.samples.push_back({{top}, 2});
  const auto s = profile::samples_by_function(p, {"main.top", "main.mid", "main.leaf", "main.absent"});
  EXPECT_EQ(s[0].cpu, 14u);
  EXPECT_EQ(s[0].probe, 11u);
  EXPECT_EQ(s[0].self, 2u) << "top's own sample only: mid and leaf are asked for too";
  EXPECT_EQ(s[1].cpu, 12u);
  EXPECT_EQ(s[1].probe, 11u);
  EXPECT_EQ(s[1].self, 5u) << "mid's own (recursive) samples; the one with leaf inlined is leaf's";
  EXPECT_EQ(s[2].cpu, 7u);
  EXPECT_EQ(s[2].self, 7u);
  EXPECT_EQ(s[2].probe, 0u);
  EXPECT_EQ(s[3].cpu + s[3].probe, 0u);
}

// After gate ab's first pair, calls: auto counts a sampled function's calls without timing them: its
// runs have no p50. The speed factors must then come from its sampled CPU per call, or a workload
// whose functions mostly go to samples loses its speed normalization (fewer than 5 with a p50).
TEST(Instrument, SpeedFactorsFromSampledFunctionsWhenProbesOnlyCount) {
  Sides s = make_sides(1.0, 5);
  std::vector<double> speed(s.base.size(), 1.0);
  for (size_t r = 0; r < speed.size(); r += 3) speed[r] = 1.4;
  for (const auto& f : s.meta.functions) {
    add_samples(s.base, f.name, 50'000, 1.0, 0.5, speed, 11);  // ~500 samples a run: 4.5% Poisson noise
    add_samples(s.head, f.name, 50'000, 1.0, 0.5, speed, 12);
  }
  auto count_only = [](std::vector<RunResult>& runs) {
    for (size_t r = 1; r < runs.size(); ++r)
      for (auto& f : runs[r].functions) f.histogram = LatencyHistogram{};
  };
  count_only(s.base);
  count_only(s.head);
  const auto sf = stats::speed_factors(s.base, s.head, options());
  ASSERT_TRUE(sf.usable) << explain::speed_not_used(sf.why_not);
  // The slow spells (1.4x, a third of the runs) are what the factors find: log 1.4 = 0.34 above the
  // fast runs, which hold every function's median.
  for (int side = 0; side < 2; ++side)
    for (size_t r = 0; r < speed.size(); ++r)
      EXPECT_NEAR(sf.all[side][r], std::log(speed[r]), 0.1) << "side " << side << " run " << r;
  // Without samples, the count-only runs leave no function to estimate the speed from.
  for (auto* side : {&s.base, &s.head})
    for (auto& r : *side)
      for (auto& f : r.functions) f.self_samples = 0;
  EXPECT_FALSE(stats::speed_factors(s.base, s.head, options()).usable);
}

// calls: auto removes a sampled function's probes after the first pair only where the workload made
// the same calls of it on both sides, a whole number per execution; else it keeps an entry probe.
TEST(Instrument, FixedCallsOnlyWhereBothSidesFirstExecutionsAgree) {
  Sides s = make_sides(1.0, 6, 5);
  runner::Config cfg;
  for (auto* side : {&s.base, &s.head}) {
    side->front().executions = 2;
    for (auto& f : side->front().functions) f.calls = f.name == "main.hot" ? 200'000 : 4'000;
  }
  const std::vector<std::string> names = {"main.hot", "main.f00"};
  auto fixed = verdict::fixed_calls_after_first_pair(cfg, names, s.base, s.head);
  ASSERT_EQ(fixed.size(), 2u);
  EXPECT_EQ(fixed["main.hot"], 100'000u);
  EXPECT_EQ(fixed["main.f00"], 2'000u);
  for (auto& f : s.head.front().functions)
    if (f.name == "main.f00") f.calls += 2;  // the head called it once more an execution
  for (auto& f : s.base.front().functions)
    if (f.name == "main.hot") f.calls += 1;  // not a whole number per execution
  fixed = verdict::fixed_calls_after_first_pair(cfg, names, s.base, s.head);
  EXPECT_TRUE(fixed.empty()) << fixed.size();
  // A service's rounds are driven by a load that need not repeat itself exactly: never fixed.
  Sides t = make_sides(1.0, 7, 5);
  for (auto* side : {&t.base, &t.head})
    for (auto& f : side->front().functions) f.calls = 1'000;
  ASSERT_EQ(verdict::fixed_calls_after_first_pair(cfg, names, t.base, t.head).size(), 2u);
  cfg.service = runner::ServiceSpec{};
  EXPECT_TRUE(verdict::fixed_calls_after_first_pair(cfg, names, t.base, t.head).empty());
}

// Layout variants: a function's CPU time follows its placement as its latency does, so the sampled
// test is widened for the between-layout variance too (it was not: a 3-layout pre-merge judged
// cpu/call as if every unit were independent).
TEST(Instrument, SampledTestWidenedForLayouts) {
  Sides s = make_sides(1.0, 31, 12);
  const double effect[3] = {0.8, 1.0, 1.25};
  for (auto* side : {&s.base, &s.head})
    for (size_t r = 0; r < side->size(); ++r) (*side)[r].layout = static_cast<int>(r % 3);
  for (size_t r = 0; r < s.head.size(); ++r)
    for (auto& f : s.head[r].functions)
      if (f.name == "main.hot")
        f.self_samples = static_cast<uint64_t>(static_cast<double>(f.self_samples) * effect[r % 3]);
  const auto c = verdict::judge_with_layouts(s.base, s.head, s.meta, s.meta, options(), nullptr);
  const auto& q = hot(c).quantiles.at(0);
  ASSERT_EQ(q.name, stats::kSampledTestName);
  EXPECT_EQ(q.layouts.layouts, 3);
  EXPECT_GT(q.layouts.factor, 2.0) << "a +-25% layout effect against ~3% unit noise";
  EXPECT_GT(q.layouts.share, 0.8);
  EXPECT_NE(hot(c).verdict, stats::Verdict::kRegression);
}

}  // namespace
}  // namespace gate
