// bench_results: the size of a 10,000-function, 20-run result file and the time to load it and
// to compare it with itself (issue 14: `gate compare` on such a file stays under 1 s).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "many_functions.hpp"
#include "results/result.hpp"
#include "stats/compare.hpp"

namespace {

using namespace gate;

const std::string& text() {
  static const std::string t = [] {
    std::string s = result_to_json_text(testing::many_function_result(10000, 20));
    std::printf("result file, 10,000 functions x 20 runs: %.1f MiB\n", s.size() / 1048576.0);
    return s;
  }();
  return t;
}

void BM_Load10000Functions20Runs(benchmark::State& state) {
  text();  // generated outside the timed loop
  for (auto _ : state) benchmark::DoNotOptimize(result_from_json_text(text(), "bench"));
}
BENCHMARK(BM_Load10000Functions20Runs)->Unit(benchmark::kMillisecond);

// What `gate compare` does with two such files: load both, compare.
void BM_LoadTwiceAndCompare10000Functions20Runs(benchmark::State& state) {
  for (auto _ : state) {
    const ResultFile base = result_from_json_text(text(), "base");
    const ResultFile head = result_from_json_text(text(), "head");
    benchmark::DoNotOptimize(stats::compare(base.runs, head.runs, base, head, stats::CompareOptions{}));
  }
}
BENCHMARK(BM_LoadTwiceAndCompare10000Functions20Runs)->Unit(benchmark::kMillisecond);

void BM_Save10000Functions20Runs(benchmark::State& state) {
  const ResultFile r = result_from_json_text(text(), "bench");
  for (auto _ : state) benchmark::DoNotOptimize(result_to_json_text(r));
}
BENCHMARK(BM_Save10000Functions20Runs)->Unit(benchmark::kMillisecond);

}  // namespace

// `bench_results --write FILE` writes the file and exits, for timing `gate compare FILE FILE` itself
// (its report and checks included): /usr/bin/time, or valgrind --tool=callgrind for a figure that
// the machine's load does not move.
int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--write") {
    gate::write_file_atomically(argv[2], text());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
