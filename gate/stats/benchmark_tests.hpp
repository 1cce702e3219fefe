// Go benchmark metrics as tests: per benchmark and unit, one value per run on each side (the
// benchmark's own ns/op, B/op, custom units), compared like a function's per-run p50.
#pragma once

#include <vector>

#include "results/result.hpp"
#include "stats/bootstrap.hpp"
#include "stats/compare.hpp"
#include "stats/speed.hpp"

namespace gate::stats {

// Per benchmark (by printed name) and unit present on both sides, the interval of head/base over
// runs, each run's time-like values (ns/op, sec/op, throughput ".../s") divided by the run's speed
// factor when `speed` is usable (the same machine-speed correction as the functions get; B/op,
// allocs/op and custom units are not speed and are left alone): paired t when `paired` (gate ab), else the run-level bootstrap, with the options' default
// band, confidence, resamples and min_runs. A run that printed a benchmark several times
// (-test.count N) counts once, with the median of its values. Verdicts are provisional (raw
// p-values): the caller adjusts them in one family with the function tests (verdict/benchmark_family.hpp).
// Names that ran on one side only, and units missing on one side, are listed, never dropped.
BenchmarkComparison estimate_benchmarks(const std::vector<RunResult>& base_runs,
                                        const std::vector<RunResult>& head_runs, const CompareOptions& o,
                                        bool paired, const SpeedFactors& speed);

// What compare() does for each function and quantile, for tests made outside it: an interval
// into a comparison (qc.units and qc.band set first); verdicts come from the whole family
// (stats/family.hpp).
void fill_interval(QuantileComparison& qc, const RatioInterval& r, bool paired);
// The bootstrap settings compare() gives every test (resamples, confidence, winsorizing), with the
// test's own seed.
BootstrapOptions bootstrap_options(const CompareOptions& o, uint64_t seed);
// The runs' speed factors as compare() computes them from the functions' p50s (not usable when
// o.normalize_speed is off or too few functions have calls in every run).
SpeedFactors speed_factors(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                           const CompareOptions& o);

}  // namespace gate::stats
