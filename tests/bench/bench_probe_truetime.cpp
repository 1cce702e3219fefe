// True-time figures (not pass/fail; issue 9), as root: for parents of 2, 20 and 200 us calling
// 0, 1 and 10 traced helpers (tests/go/truetime), compensated p50 and self p50 against the
// program's own clock, raw mean, over several repetitions; then a 10% slowdown of a parent's own
// code with and without 10 traced children, as the verdict's per-run p50 ratio would see it.
// Usage: bench_probe_truetime [--reps R] [--rounds N]
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probe/probe_fixture.hpp"
#include "truetime/probe_cost.hpp"

using namespace gate;
using namespace gate::testing;

namespace {

double p50_line(const Measured& m, const std::string& key) {
  return nlohmann::json::parse(m.lines.at(key)).at("p50").get<double>();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Measured run(const ProbeCalibration& cal, double us, int k, int n, double slow = 1) {
  char args[160];
  std::snprintf(args, sizeof args, "-us %g -children %d -n %d -slow %g", us, k, n, slow);
  return measure_workload(
      {.binary = truetime_binary(), .args = args, .functions = {"main.parent", "main.helper"}, .calibration = cal});
}

void accuracy_table(const ProbeCalibration& cal, int reps) {
  std::printf("1. Compensated and self p50 vs the program's own clock (median of %d reps; worst in brackets)\n", reps);
  std::printf("   %7s %8s %11s %22s %22s %12s %9s\n", "parent", "children", "own p50", "compensated p50 err",
              "self p50 err", "raw mean", "in tol");
  for (double us : {2.0, 20.0, 200.0}) {
    for (int k : {0, 1, 10}) {
      std::vector<double> err, self_err, raw;
      int within = 0;
      double truth_med = 0;
      for (int r = 0; r < reps; ++r) {
        const auto m = run(cal, us, k, us >= 200 ? 100 : 300);
        const auto& f = m.fn("main.parent");
        const double truth = p50_line(m, "GATE_PARENT_NS"), self_truth = p50_line(m, "GATE_SELF_NS");
        const double e = f.quantile_ns(0.5) - truth;
        err.push_back(e);
        self_err.push_back(f.true_time.self_histogram.quantile(0.5) - self_truth);
        raw.push_back(double(f.true_time.raw_sum_ns) / f.calls);
        truth_med += truth / reps;
        if (std::fabs(e) <= std::max(0.03 * truth, 500.0)) ++within;
      }
      auto worst = [](const std::vector<double>& v) {
        return *std::max_element(v.begin(), v.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
      };
      std::printf("   %5.0fus %8d %9.0fns %+9.0fns [%+8.0f] %+9.0fns [%+8.0f] %10.0fns %6d/%d\n", us, k, truth_med,
                  median(err), worst(err), median(self_err), worst(self_err), median(raw), within, reps);
      std::fflush(stdout);
    }
  }
}

// Per-run p50 of main.parent at normal and +10% own time, interleaved; the detectability of the
// slowdown is the gap between the two sets relative to their spread (what the verdict's
// per-run-p50 comparison faces).
void slowdown(const ProbeCalibration& cal, int reps) {
  std::printf("\n2. A 10%% slowdown of a 20 us parent's own code: per-run compensated p50 (us), %d runs a side\n", reps);
  for (int k : {0, 10}) {
    std::vector<double> base, head;
    for (int r = 0; r < reps; ++r) {
      base.push_back(run(cal, 20, k, 200, 1.0).fn("main.parent").quantile_ns(0.5) / 1000);
      head.push_back(run(cal, 20, k, 200, 1.1).fn("main.parent").quantile_ns(0.5) / 1000);
    }
    const double bmin = *std::min_element(base.begin(), base.end()), bmax = *std::max_element(base.begin(), base.end());
    const double hmin = *std::min_element(head.begin(), head.end()), hmax = *std::max_element(head.begin(), head.end());
    std::printf("   %2d children: base %.2f [%.2f-%.2f]  head %.2f [%.2f-%.2f]  ratio of medians %.3f, %s\n", k,
                median(base), bmin, bmax, median(head), hmin, hmax, median(head) / median(base),
                hmin > bmax ? "separated (every head run above every base run)" : "overlapping");
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
  }
  if (geteuid() != 0) {
    std::fprintf(stderr, "bench_probe_truetime: needs root (BPF)\n");
    return 2;
  }
  try {
    truetime::CalibrationOptions o;
    o.rounds = rounds;
    const auto cal = truetime::measure_probe_costs(o);
    std::printf("gate true-time benchmark (Go %s)\ncalibration: %s\n\n", probe_toolchain().version.c_str(),
                truetime::describe(cal).c_str());
    accuracy_table(cal, reps);
    slowdown(cal, reps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_probe_truetime: %s\n", e.what());
    return 3;
  }
  return 0;
}
