// A result of many functions and runs, each function called a few times a run (the shape a glob
// over a service's module gives): the size and loading-time figures of issue 14 are made of it.
#pragma once

#include <algorithm>
#include <random>
#include <string>

#include "results/result.hpp"

namespace gate::testing {

// `functions` functions x `runs` runs, each function called 2-8 times a run at 15-40 us.
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
      rr.functions.push_back(std::move(f));
    }
    r.runs.push_back(std::move(rr));
  }
  return r;
}

}  // namespace gate::testing
