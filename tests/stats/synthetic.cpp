// Synthetic runs: per call a lognormal latency, scaled by a per-run noise factor, added to a real
// LatencyHistogram; generated independently of the statistics under test (std::erfc, <random>).
#include "synthetic.hpp"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <random>

namespace gate::testing {
namespace {

// Binomial(n, p) draw. std::binomial_distribution sets up tables on construction, which dominated
// when constructed per bucket; most buckets expect under ten calls, where inversion (walking the
// pmf from 0) takes a handful of steps.
uint64_t binomial(uint64_t n, double p, std::mt19937_64& rng) {
  if (n == 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const double mean = static_cast<double>(n) * p;
  if (mean >= 10) return std::binomial_distribution<uint64_t>(n, p)(rng);
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  double pk = std::exp(static_cast<double>(n) * std::log1p(-p));  // P(0)
  const double odds = p / (1 - p);
  uint64_t k = 0;
  while (u > pk && k < n) {
    u -= pk;
    pk *= static_cast<double>(n - k) / static_cast<double>(k + 1) * odds;
    ++k;
  }
  return k;
}

// n iid lognormal(mu, sigma) calls bucketed: the bucket counts are multinomial over the buckets'
// probabilities, drawn as a chain of binomials -- the same distribution as drawing and bucketing
// each call, several times faster (a few hundred buckets instead of thousands of calls). Calls
// beyond 7 sigma (probability 1e-12) are not represented.
void fill_histogram(FunctionRun& fr, double mu, double sigma, std::mt19937_64& rng) {
  // log of each bucket's upper bound, computed once: the log per bucket was a third of the time.
  static const std::vector<double> log_upper = [] {
    std::vector<double> v(LatencyHistogram::bucket_count());
    for (uint32_t b = 0; b < v.size(); ++b)
      v[b] = std::log(static_cast<double>(LatencyHistogram::lower_ns(b) + LatencyHistogram::width_ns(b)));
    return v;
  }();
  const double scale = 1 / (sigma * std::sqrt(2.0));
  const uint32_t first = LatencyHistogram::bucket_of(static_cast<uint64_t>(std::exp(mu - 7 * sigma)));
  const uint32_t last = LatencyHistogram::bucket_of(static_cast<uint64_t>(std::exp(mu + 7 * sigma)) + 1);
  uint64_t left = fr.calls;
  double mass_left = 1.0;
  double sum = 0;
  double below = 0;  // cdf at the current bucket's lower bound (everything below lands in `first`)
  fr.min_ns = 0;
  fr.max_ns = 0;
  for (uint32_t b = first; b <= last && left > 0; ++b) {
    const double lower = static_cast<double>(LatencyHistogram::lower_ns(b));
    const double width = static_cast<double>(LatencyHistogram::width_ns(b));
    // Integer ns: a call of x ns lands in the bucket of floor(x), i.e. x in [lower, lower + width).
    const double above = b == last ? 1.0 : 0.5 * std::erfc(-(log_upper[b] - mu) * scale);
    const double p = above - below;
    below = above;
    const uint64_t k = b == last || p >= mass_left ? left : binomial(left, std::clamp(p / mass_left, 0.0, 1.0), rng);
    mass_left -= p;
    if (k == 0) continue;
    left -= k;
    fr.histogram.add_bucket(b, k);
    sum += static_cast<double>(k) * (lower + width / 2);
    if (fr.min_ns == 0) fr.min_ns = static_cast<uint64_t>(lower);
    fr.max_ns = static_cast<uint64_t>(lower + width - 1);
  }
  fr.sum_ns = static_cast<uint64_t>(sum);
}

}  // namespace

std::vector<RunResult> synthetic_runs(const std::vector<SyntheticFunction>& functions, int runs,
                                      const SyntheticNoise& noise, uint64_t seed, const std::string& variant) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<RunResult> out;
  std::mt19937_64 machine(noise.machine_seed ? noise.machine_seed : seed ^ 0x6d616368696e65ULL);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int r = 0; r < runs; ++r) {
    RunResult run;
    run.index = r + 1;
    run.variant = variant;
    const double shared = noise.run_sigma * normal(rng);
    const double state = unit(machine) < noise.slow_fraction ? noise.slow_factor : 1.0;
    for (const auto& f : functions) {
      const double factor = state * std::exp(noise.shared_per_run ? shared : noise.run_sigma * normal(rng));
      const double mu = std::log(f.median_ns * f.scale * factor);
      const auto n = static_cast<uint64_t>(std::llround(f.calls_per_run * (1 + noise.calls_jitter * uniform(rng))));
      FunctionRun fr;
      fr.name = f.name;
      fr.calls = n;
      fill_histogram(fr, mu, f.sigma, rng);
      run.functions.push_back(std::move(fr));
    }
    out.push_back(std::move(run));
  }
  return out;
}

ResultFile synthetic_meta(const std::vector<SyntheticFunction>& functions) {
  ResultFile r;
  r.context.cpu_model = "Synthetic CPU @ 3.0GHz";
  r.context.cpu_count = 4;
  r.context.kernel = "6.1.0-synthetic";
  r.context.go_version = "go1.22.1";
  r.context.gate_version = "0.1.0";
  r.context.attach_mode = "uprobe_multi";
  uint32_t id = 0;
  for (const auto& f : functions) {
    FunctionInfo fi;
    fi.id = id++;
    fi.name = f.name;
    fi.entry_placement = "stack-check-jump";
    fi.entry_cost_class = "emulated";
    r.functions.push_back(fi);
  }
  return r;
}

std::vector<SyntheticFunction> synthetic_functions(int n, double calls_per_run) {
  std::vector<SyntheticFunction> fs;
  for (int i = 0; i < n; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "main.f%02d", i);
    SyntheticFunction f;
    f.name = name;
    f.median_ns = 1000.0 * std::pow(1000.0, n > 1 ? static_cast<double>(i) / (n - 1) : 0.0);
    f.sigma = 0.3 + 0.4 * ((i * 7) % 10) / 9.0;  // 0.3 .. 0.7: tight to wide latency spreads
    f.calls_per_run = calls_per_run;
    fs.push_back(f);
  }
  return fs;
}

SyntheticAA synthetic_aa(double run_sigma, double calls_per_run, uint64_t seed) {
  const auto fns = synthetic_functions(8, calls_per_run);
  SyntheticNoise noise;
  noise.run_sigma = run_sigma;
  const auto meta = synthetic_meta(fns);
  stats::CompareOptions o;
  o.quantiles = {stats::QuantileSpec::parse("p50")};
  o.thresholds.defaults = {0.05, 0.05};
  SyntheticAA out{synthetic_runs(fns, 12, noise, seed, "base"), synthetic_runs(fns, 12, noise, seed + 1, "head"), {}};
  out.comparison = stats::compare(out.base, out.head, meta, meta, o);
  return out;
}

void time_calls(SyntheticAA& a, const std::string& when) {
  for (auto* side : {&a.base, &a.head})
    for (RunResult& run : *side) {
      run.duration_s = 1.0;
      for (FunctionRun& f : run.functions)
        for (uint64_t k = 0; k < f.calls; ++k) {
          const auto ns = when == "burst" ? uint64_t{5'000'000} : (k * 1'000'000'000ull) / f.calls;
          f.sum_start_us += ns >> 10;
          f.sum_start_ms2 += (ns >> 20) * (ns >> 20);
        }
    }
}

}  // namespace gate::testing
