// bench_stats: the cost of compare() at scale -- 1,000 functions x 20 runs a side x 3 quantiles
// (p50, p90, p99) with 2,000 resamples must take under a second -- and of one test.
#include <benchmark/benchmark.h>

#include "stats/bootstrap.hpp"
#include "stats/compare.hpp"
#include "synthetic.hpp"

namespace {

using namespace gate;

struct Data {
  std::vector<RunResult> base, head;
  ResultFile meta;
};

// Generated once (~2 s): 40,000 histograms of ~2,000 calls.
const Data& data() {
  static const Data d = [] {
    const auto fns = testing::synthetic_functions(1000);
    testing::SyntheticNoise noise;
    noise.run_sigma = 0.03;
    return Data{testing::synthetic_runs(fns, 20, noise, 1), testing::synthetic_runs(fns, 20, noise, 2),
                testing::synthetic_meta(fns)};
  }();
  return d;
}

void BM_Compare1000Functions20Runs3Quantiles(benchmark::State& state) {
  const Data& d = data();
  stats::CompareOptions o;
  o.quantiles = {stats::QuantileSpec::parse("p50"), stats::QuantileSpec::parse("p90"),
                 stats::QuantileSpec::parse("p99")};
  o.resamples = static_cast<int>(state.range(0));
  o.threads = static_cast<unsigned>(state.range(1));  // 0: one per hardware thread
  int tests = 0;
  for (auto _ : state) {
    const auto c = stats::compare(d.base, d.head, d.meta, d.meta, o);
    tests = c.tests;
    benchmark::DoNotOptimize(c.functions.data());
  }
  state.counters["tests"] = tests;
  state.counters["per_test"] = benchmark::Counter(static_cast<double>(tests) * static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// Args: resamples, threads. The requirement is for one thread with the default 2,000 resamples.
BENCHMARK(BM_Compare1000Functions20Runs3Quantiles)
    ->Args({2000, 1})
    ->Args({2000, 0})
    ->Args({1000, 1})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

// One bootstrap_ratio on prepared runs: the resampling alone, by runs per side.
void BM_BootstrapRatio(benchmark::State& state) {
  const Data& d = data();
  const auto runs = static_cast<size_t>(state.range(0));
  stats::RunSamples base, head;
  for (size_t i = 0; i < runs; ++i) {
    stats::HistogramCursor b(d.base[i].functions[0].histogram), h(d.head[i].functions[0].histogram);
    base.add_quantile_run(b, 0.5);
    head.add_quantile_run(h, 0.5);
  }
  stats::BootstrapOptions o;
  for (auto _ : state) benchmark::DoNotOptimize(stats::bootstrap_ratio(base, head, o).ci_low);
}
BENCHMARK(BM_BootstrapRatio)->Arg(5)->Arg(10)->Arg(20)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
