// A result of many functions and runs, each function called a few times a run (the shape a glob
// over a service's module gives): the size and loading-time figures of issue 14 are made of it.
#pragma once

#include <algorithm>
#include <random>
#include <string>

#include "results/result.hpp"

namespace gate::testing {

// `functions` functions x `runs` runs, each function called 2-8 times a run at 15-40 us, with the
// true-time figures a default run records: raw windows 1.5 us longer, and in each group of four
// functions the first calls the other three (descendants, self time, one caller edge each).
inline ResultFile many_function_result(uint32_t functions, int runs, uint64_t seed = 7) {
  ResultFile r;
  std::mt19937_64 rng(seed);
  for (uint32_t i = 0; i < functions; ++i)
    r.functions.push_back(FunctionInfo{.id = i, .name = "example.com/svc/pkg.F" + std::to_string(i)});
  for (int run = 1; run <= runs; ++run) {
    RunResult rr;
    rr.index = run;
    for (const auto& fi : r.functions) {
      FunctionRun f{.name = fi.name};
      for (int c = 2 + static_cast<int>(rng() % 7); c > 0; --c) {
        const uint64_t ns = 15000 + rng() % 25000;
        f.histogram.add(ns);
        f.sum_ns += ns;
        f.min_ns = f.min_ns ? std::min(f.min_ns, ns) : ns;
        f.max_ns = std::max(f.max_ns, ns);
      }
      f.calls = f.histogram.count();
      TrueTimeRun& t = f.true_time;
      t.present = true;
      t.raw_sum_ns = f.sum_ns + 1500 * f.calls;
      t.raw_min_ns = f.min_ns + 1500;
      t.raw_max_ns = f.max_ns + 1500;
      const bool parent = fi.id % 4 == 0;
      t.descendants = parent ? 3 * f.calls : 0;
      t.self_sum_ns = parent ? f.sum_ns / 2 : f.sum_ns;
      if (parent)
        t.self_histogram.add(f.min_ns / 2, f.calls);
      else
        t.self_histogram = f.histogram;  // no traced children: self time is the time
      if (!parent) t.callers.push_back({"example.com/svc/pkg.F" + std::to_string(fi.id - fi.id % 4), f.calls, f.sum_ns});
      rr.functions.push_back(std::move(f));
    }
    r.runs.push_back(std::move(rr));
  }
  return r;
}

}  // namespace gate::testing
