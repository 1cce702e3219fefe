// The deterministic sample comparison of the report tests (see report_fixture.hpp).
#include "report_fixture.hpp"
#include "explain/explain.hpp"

#include <algorithm>

#include "common/files.hpp"
#include "synthetic.hpp"
#include "verdict/benchmark_family.hpp"
#include "verdict/exit_code.hpp"

namespace gate::testing {

std::string slurp(const std::string& path) { return read_file(path).value_or(""); }

void make_report_sample(ReportSample& s) {
  std::vector<SyntheticFunction> base_fns = {
      {kRegressed, 700'000, 0.3, 5000, 1.0},
      {"example.com/shop.SumBy[go.shape.int64]", 2'000, 0.3, 5000, 1.0},
      {kImproved, 40'000, 0.3, 5000, 1.0},
      {kTricky, 9'000, 0.3, 5000, 1.0},
      {"example.com/shop.(*Store).Get", 1'100, 0.3, 5000, 1.0},
      {"example.com/shop.GenerateReport", 8'000'000, 0.2, 5000, 1.0},
      {kFewCalls, 50'000, 0.3, 12, 1.0},
      {"main.removed", 5'000, 0.3, 2000, 1.0},
  };
  std::vector<SyntheticFunction> head_fns = base_fns;
  head_fns[0].scale = 1.3;             // regression
  head_fns[1].scale = 1.035;           // near the threshold: inconclusive at this noise
  head_fns[2].scale = 0.7;             // improvement
  head_fns[4].calls_per_run = 10000;    // calls per run doubled (reported only)
  head_fns.pop_back();                 // main.removed: only in base
  head_fns.push_back({"main.added", 3'000, 0.3, 2000, 1.0});  // only in head

  SyntheticNoise noise;
  noise.run_sigma = 0.004;
  s.base = synthetic_meta(base_fns);
  s.head = synthetic_meta(head_fns);
  s.base.runs = synthetic_runs(base_fns, 12, noise, 11, "");
  s.head.runs = synthetic_runs(head_fns, 12, noise, 12, "");
  s.head.context.kernel = "6.9.0-synthetic";  // a context warning
  s.head.context.hostname = "ci-runner-1";
  s.head.context.started_at = "2024-05-01T12:00:00Z";
  for (auto* r : {&s.base, &s.head})
    for (auto& run : r->runs) run.duration_s = 1.25;

  // Go benchmarks beside the functions (benchmarks: go): BenchmarkCheckout 1.2x slower in ns/op
  // with a constant allocs/op, and BenchmarkSum64/4KB whose executions run at one of two speeds
  // (631 and 335 MB/s, in turn), its fast mode 0.92x and its slow mode 1.10x in the head: the modes
  // moved apart, so it is inconclusive however narrow its interval.
  for (int side = 0; side < 2; ++side)
    for (size_t i = 0; i < 12; ++i) {
      const double w = 1 + 0.01 * static_cast<double>((i * 7 + side * 3) % 5) - 0.02;
      BenchmarkRun checkout{"BenchmarkCheckout-2", "example.com/shop", 300,
                            {{"ns/op", 5000 * w * (side ? 1.2 : 1.0)}, {"allocs/op", 3}}};
      BenchmarkRun sum{"BenchmarkSum64/4KB-2", "example.com/shop", 100000, {}};
      std::vector<double> mbs;
      for (size_t e = 0; e < 6; ++e) {
        const double v = 1 + 0.01 * static_cast<double>((i * 3 + e * 5 + side) % 7) - 0.03;
        mbs.push_back(e % 2 ? 335 * v * (side ? 1.10 : 1.0) : 631 * v * (side ? 0.92 : 1.0));
      }
      sum.metrics = {{"MB/s", *std::max_element(mbs.begin(), mbs.end())}};
      sum.executions = {{"MB/s", mbs}};
      auto& run = (side ? s.head : s.base).runs[i];
      run.clean_executions = run.probed_executions = 6;  // benchmark figures from executions without probes
      run.benchmarks = {checkout, sum};
      run.benchmark_higher_better = {"MB/s"};
    }

  s.options.thresholds.per_function_quantile[kImproved]["p99"] = {0.10, 0.05};
  s.options.threads = 1;
  s.comparison = stats::compare(s.base.runs, s.head.runs, s.base, s.head, s.options);
  verdict::judge_benchmarks(s.comparison, s.base.runs, s.head.runs, s.options);  // as verdict/ does
  s.comparison.exit_code = verdict::exit_code(s.comparison, s.options.fail_on_suspect);

  auto& in = s.inputs;
  in.command = "check";
  in.subject = "shop";
  in.base = &s.base;
  in.head = &s.head;
  in.options = &s.options;
  in.next.rerun = "gate check -c examples/shop/gate.yaml --baseline-ref origin/main";
  in.next.accept = "gate record -c examples/shop/gate.yaml --baseline baselines/shop.json --force";
  in.next.accept_note = "then commit baselines/shop.json to the branch origin/main names";
  in.notices = {"this branch changes the baseline baselines/shop.json; the gate ignored that change and used the one in "
                "origin/main (0123456789ab)"};
  in.base_label = "baseline origin/main:baselines/shop.json";
  in.head_label = "this build";
}

const ReportSample& sample() {
  static ReportSample* s = [] {
    auto* p = new ReportSample;
    make_report_sample(*p);
    return p;
  }();
  return *s;
}

}  // namespace gate::testing
