// What a comparison can see: the smallest slowdown it catches at a given number of runs, and the
// runs it needs to catch a given slowdown, from the measured run-to-run noise.
#pragma once

#include "results/histogram.hpp"

namespace gate::stats {

// The test behind each function's verdict: one-sided at alpha = (1 - confidence) / 2, strictest
// Holm step alpha / tests, Student t with `units - 1` degrees of freedom (paired: pairs; unpaired:
// runs a side, about 2 (n - 1) df, taken as n - 1 to stay on the safe side); ~80% power.
struct PowerModel {
  double confidence = 0.95;
  int tests = 1;       // size of the Holm family
  double power = 0.8;
  // Measure-until-decided's looks (stats/sequential.hpp): each look must pass the stricter
  // per-look level that keeps the plan's false-alarm rate. 0, 0: one look.
  int first_look = 0;
  int last_look = 0;
};

// The one-sided level a single test must reach at a look under the model: alpha / tests, made
// per-look when the model has looks.
double look_level(const PowerModel& m);

// Smallest head/base ratio caught with the model's power: (1 + band) * exp((crit + t_power) * noise
// / sqrt(units)). `noise` is the log-sd of one unit's head/base difference. 0 when units < 2.
double detectable_ratio(double noise, int units, double band, const PowerModel& m);

// Fewest units (pairs, or runs a side) for which detectable_ratio <= ratio; 0 when ratio is not
// above 1 + band (never catchable), max_units + 1 when more than max_units would be needed.
int units_to_detect(double noise, double ratio, double band, const PowerModel& m, int max_units = 1000);

// How much of a run's quantile is chance in which calls the run happened to make: the log-sd of
// the quantile estimated from `h`'s calls, from the order statistic's spread (the rank of the
// sample quantile has sd sqrt(q (1 - q) / n) in probability): half the log distance between the
// histogram's quantiles at q -+ that sd. For a log-normal with log-sd sigma and p50 this is the
// textbook 1.2533 sigma / sqrt(n). It shrinks as 1 / sqrt(calls): what a longer run buys, where the
// rest of the run-to-run noise (the machine's speed, start-up work, memory layout) does not shrink.
// 0 for an empty histogram or q outside (0, 1).
double quantile_sampling_sd(const LatencyHistogram& h, double q);

}  // namespace gate::stats
