// simulate_counts: synthetic sampled units (one function, one period) through stats::sampled_test.
#include "count_sim.hpp"

#include <random>
#include <string>
#include <vector>

#include "stats/family.hpp"
#include "stats/instrument.hpp"

namespace gate::testing {

CountSimResult simulate_counts(const CountSimSetting& s, int trials, uint64_t seed) {
  constexpr uint64_t kPeriod = 200'000;  // 4999 Hz
  constexpr uint64_t kBaseCalls = 1000;
  const std::string fn = "main.f";
  std::mt19937_64 rng(seed);
  std::gamma_distribution<double> gamma(1 / (s.overdispersion * s.overdispersion),
                                        s.overdispersion * s.overdispersion);
  std::uniform_real_distribution<double> uniform(0, 1);
  stats::CompareOptions o;
  o.thresholds.defaults = {s.band, s.band};
  o.normalize_speed = s.unrelated_speed_sd > 0;
  std::normal_distribution<double> offset(0, s.unrelated_speed_sd > 0 ? s.unrelated_speed_sd : 1);
  const uint64_t head_calls = static_cast<uint64_t>(kBaseCalls * s.head_calls + 0.5);
  CountSimResult out;
  for (int t = 0; t < trials; ++t) {
    std::vector<RunResult> sides[2];
    stats::SpeedFactors speed;
    speed.usable = s.unrelated_speed_sd > 0;
    for (int p = 0; p < s.pairs; ++p) {
      if (speed.usable)
        for (int side = 0; side < 2; ++side) speed.all[side].push_back(offset(rng));
      const double speed = uniform(rng) < s.slow_fraction ? s.slow_factor : 1.0;
      for (int side = 0; side < 2; ++side) {
        const double mean = s.base_samples * speed * (side ? s.head_calls * s.ratio : 1.0) *
                            (s.overdispersion > 0 ? gamma(rng) : 1.0);
        RunResult r;
        r.index = p + 1;
        r.variant = side ? "head" : "base";
        r.sample_period_ns = kPeriod;
        FunctionRun f;
        f.name = FunctionName(fn);
        f.calls = side ? head_calls : kBaseCalls;
        f.self_samples = f.cpu_samples = std::poisson_distribution<uint64_t>(mean)(rng);
        r.functions.push_back(f);
        sides[side].push_back(std::move(r));
      }
    }
    stats::QuantileComparison q = stats::sampled_test(sides[0], sides[1], fn, o, true, speed);
    ++out.trials;
    out.exact += q.exact.used;
    out.pooled += q.pooled.used && !q.exact.used;
    if (!q.tested()) {
      ++out.undecided;
      continue;
    }
    stats::decide_family({&q}, o);
    switch (q.verdict) {
      case stats::Verdict::kRegression:
        ++out.regressions;
        out.pooled_regressions += q.pooled.used && !q.exact.used;
        break;
      case stats::Verdict::kImprovement: ++out.improvements; break;
      case stats::Verdict::kUnchanged: ++out.unchanged; break;
      default: ++out.undecided; break;
    }
  }
  return out;
}

}  // namespace gate::testing
