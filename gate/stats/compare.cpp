// compare(): per function and quantile an interval (bootstrap.cpp), the family's verdicts
// (family.cpp), calls per run, findings (findings.cpp) and the exit code. Values only: the
// sentences are explain/'s. Options: compare_options.cpp; what a Comparison says of itself: comparison.cpp.
#include "stats/compare.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/fnv.hpp"
#include "common/numbers.hpp"
#include "stats/benchmark_tests.hpp"
#include "stats/bootstrap.hpp"
#include "stats/distributions.hpp"
#include "stats/family.hpp"
#include "stats/findings.hpp"
#include "stats/instrument.hpp"
#include "stats/noise_sources.hpp"
#include "stats/power.hpp"
#include "stats/rng.hpp"
#include "stats/sequential.hpp"
#include "stats/speed.hpp"

namespace gate::stats {
namespace {



// Seed of one test: depends on the options' seed, the function and the quantile only, so adding,
// removing or reordering other functions never changes this one's verdict.
uint64_t test_seed(uint64_t seed, const std::string& function, const std::string& quantile) {
  uint64_t h = fnv1a64(function);
  h = fnv1a64(std::string_view("\x1f", 1), h);
  h = fnv1a64(quantile, h);
  uint64_t s = seed ^ h;
  return splitmix64(s);
}

}  // namespace

BootstrapOptions bootstrap_options(const CompareOptions& o, uint64_t seed) {
  BootstrapOptions bo;
  bo.resamples = o.resamples;
  bo.confidence = o.confidence;
  bo.outlier_sigmas = o.outlier_sigmas;
  bo.seed = seed;
  bo.fit_elasticity = o.normalize_speed && o.fit_speed_elasticity;
  return bo;
}

namespace {

// Names of the functions a side knows: declared in its result, or present in any of its runs.
// Every function name of a side, sorted and unique, as views of the names `runs` and `meta` own.
// (A std::set<std::string> of them was 7% of `gate compare` on 10,000 functions x 20 runs.)
std::vector<std::string_view> names_of(const std::vector<RunResult>& runs, const ResultFile& meta) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(meta.functions.size() + (runs.empty() ? 0 : runs.front().functions.size()));
  for (const auto& f : meta.functions) seen.insert(f.name);
  for (const auto& r : runs)
    for (const auto& f : r.functions) seen.insert(f.name);
  std::vector<std::string_view> names(seen.begin(), seen.end());
  std::sort(names.begin(), names.end());
  return names;
}

// a - b of two sorted name lists, as strings.
std::vector<std::string> names_missing(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  std::vector<std::string_view> d;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(d));
  return {d.begin(), d.end()};
}

struct Side {
  const char* label = "";  // "base" / "head"
  std::vector<const FunctionRun*> runs;  // one per run; nullptr when the run lacks the function
  const FunctionInfo* info = nullptr;
  std::vector<double> durations;  // the runs' durations in seconds, in the order of runs

  double calls_per_run() const {
    std::vector<double> c;
    for (const auto* f : runs) c.push_back(f ? static_cast<double>(f->calls) : 0.0);
    return c.empty() ? 0 : median(c);  // no runs: no calls
  }
  CallCounters counters() const {
    CallCounters c;
    for (const auto* f : runs) {
      if (!f) continue;
      c.calls += f->calls;
      c.unmatched_entries += f->unmatched_entries;
      c.unmatched_returns += f->unmatched_returns;
      c.diverted_entries += f->diverted_entries;
      c.dropped += f->dropped;
    }
    return c;
  }
};

// Per run, its functions by name. Looking each function up by a linear scan of every run was
// quadratic in the number of functions; one hash map per run cost 10,000 x runs insertions. Runs
// of one result normally list their functions in one order, so one map of positions (from the
// first run) serves all runs, each lookup checked by one name compare; a run in another order gets
// a map of its own.
class RunIndex {
 public:
  explicit RunIndex(const std::vector<RunResult>& runs) : runs_(&runs), own_(runs.size()) {
    if (runs.empty()) return;
    for (size_t i = 0; i < runs[0].functions.size(); ++i) position_.emplace(runs[0].functions[i].name, i);
    for (size_t r = 1; r < runs.size(); ++r) {
      const auto& fs = runs[r].functions;
      bool same = fs.size() == runs[0].functions.size();
      for (size_t i = 0; same && i < fs.size(); ++i) same = fs[i].name == runs[0].functions[i].name;
      if (!same)
        for (const auto& f : fs) own_[r].emplace(f.name, &f);  // first wins, like find()
    }
  }
  size_t size() const { return runs_->size(); }
  const RunResult& run(size_t r) const { return (*runs_)[r]; }
  double duration_s(size_t r) const { return (*runs_)[r].duration_s; }
  // nullptr when run r lacks the function.
  const FunctionRun* find(size_t r, std::string_view name) const {
    if (!own_[r].empty() || (*runs_)[r].functions.size() != (*runs_)[0].functions.size()) {
      const auto it = own_[r].find(name);
      return it == own_[r].end() ? nullptr : it->second;
    }
    const auto it = position_.find(name);
    return it == position_.end() ? nullptr : &(*runs_)[r].functions[it->second];
  }

 private:
  const std::vector<RunResult>* runs_;
  std::unordered_map<std::string_view, size_t> position_;  // first name wins, like find()
  std::vector<std::unordered_map<std::string_view, const FunctionRun*>> own_;
};

RunIndex index_runs(const std::vector<RunResult>& runs) { return RunIndex(runs); }

using InfoIndex = std::unordered_map<std::string_view, const FunctionInfo*>;

InfoIndex index_infos(const ResultFile& meta) {
  InfoIndex index;
  for (const auto& f : meta.functions) index.emplace(f.name, &f);  // first wins, like find_function()
  return index;
}

Side side_of(const char* label, const std::string& name, const RunIndex& runs, const InfoIndex& infos) {
  const auto info = infos.find(name);
  Side s{label, {}, info == infos.end() ? nullptr : info->second};
  for (size_t r = 0; r < runs.size(); ++r) {
    s.runs.push_back(runs.find(r, name));
    s.durations.push_back(runs.duration_s(r));
  }
  return s;
}

// Per run of a side, a cursor over its histogram (nullopt: the run lacks the function), shared by
// the function's quantiles, which are read in ascending order: one pass over each run's buckets.
using Cursors = std::vector<std::optional<HistogramCursor>>;
Cursors cursors_of(const Side& s) {
  Cursors c;
  for (const auto* f : s.runs) {
    c.emplace_back();
    if (f) c.back().emplace(f->histogram);
  }
  return c;
}

// An interval (qc.units already set) into a comparison, provisionally "tested": the verdict is
// decided once the whole family of tests is known (decide()).
void take_interval(QuantileComparison& qc, const RatioInterval& r, bool paired) {
  qc.paired = paired;
  qc.df = r.df;
  qc.elasticity = r.elasticity;
  qc.noise = r.log_scale * std::sqrt(static_cast<double>(qc.units));
  qc.base_ns = r.base_ns;
  qc.head_ns = r.head_ns;
  qc.ratio = r.ratio;
  qc.ci_low = qc.raw_ci_low = r.ci_low;  // until the family is decided (decide_family)
  qc.ci_high = qc.raw_ci_high = r.ci_high;
  qc.log_center = r.log_center;
  qc.log_scale = r.log_scale;
  qc.p_regression = qc.p_regression_own = r.p_above(1 + qc.band.regression);
  qc.p_improvement = r.p_below(1 - qc.band.improvement);
  qc.p_unchanged = std::max(r.p_below(1 + qc.band.regression), r.p_above(1 - qc.band.improvement));
  qc.verdict = Verdict::kUnchanged;
}

// How one function's runs are compared: their speed factors (none: nullptr) and whether base run
// i and head run i are a pair.
struct TestPlan {
  const SpeedFactors* speed = nullptr;
  size_t function = 0;  // index of the function in the speed factors
  bool paired = false;
  double offset(int side, size_t run) const { return speed ? speed->leave_out(side, run, function) : 0.0; }
};

// A quantile that lies between two modes of a function's calls -- recursive Fib's p50, where leaf
// calls (~1 us) meet inner calls (up to ms) -- jumps from one mode to the other as a run's mix of
// calls shifts by a few percent; no estimate of that quantile is stable across runs (issue 11: an
// A/A of Fib gave p50 0.87x [0.46, 2.02] at 20 runs a side). Detected on base's calls pooled over
// its runs: the calls within kProbe of the level on either side span more than kGap times (at p50:
// a lognormal with sigma 0.5 spans 1.3x, with sigma 1 1.7x, an exponential 1.8x). Such a quantile
// is compared by the mean of the calls within `half` of its level instead (p50: the interquartile
// mean; p99: the mean of the slowest 2%), which moves smoothly with the mix, and the report says so.
struct WindowMean {
  bool use = false;
  double lo = 0, hi = 0;                 // the levels whose calls are averaged
  double below = 0, above = 0;           // the probed levels either side of the quantile...
  double below_ns = 0, above_ns = 0;     // ...and the calls' values there
};

WindowMean window_for(const QuantileSpec& spec, const Side& base, uint64_t need_calls) {
  constexpr double kProbe = 0.4, kGap = 2.0;  // probe: a share of the window's half-width
  WindowMean w;
  if (spec.is_mean) return w;
  LatencyHistogram pooled;
  for (const FunctionRun* f : base.runs)
    if (f && f->histogram.count() >= need_calls) pooled.merge(f->histogram);
  if (pooled.empty()) return w;
  const double half = std::min({0.25, spec.q, 1 - spec.q});
  w.below = spec.q - kProbe * half;
  w.above = spec.q + kProbe * half;
  w.below_ns = pooled.quantile(w.below);
  w.above_ns = pooled.quantile(w.above);
  w.use = w.above_ns > kGap * std::max(w.below_ns, 1.0);
  w.lo = spec.q - half;
  w.hi = spec.q + half;
  return w;
}

// The part of a QuantileComparison that needs no other test: data sufficiency and the interval.
void estimate(QuantileComparison& qc, const QuantileSpec& spec, const std::string& function, const Side& base,
              const Side& head, Cursors* cursors, const TestPlan& plan, const CompareOptions& o) {
  for (const Side* s : {&base, &head}) {
    if (s->info && !s->info->measurable) {
      qc.why.kind = Why::Kind::kNotMeasurable;
      qc.why.side = s->label;
      qc.why.detail = s->info->not_measurable_reason;
      return;
    }
  }
  const uint64_t need_calls = min_calls_per_run(spec, o.min_tail_calls);
  const WindowMean window = window_for(spec, base, need_calls);
  if (window.use)
    qc.window = {true, window.lo, window.hi, window.below, window.above, window.below_ns, window.above_ns};
  RunSamples samples[2];
  const Side* sides[2] = {&base, &head};
  for (int i = 0; i < 2; ++i) {
    const Side& s = *sides[i];
    uint64_t total_calls = 0;
    for (size_t r = 0; r < s.runs.size(); ++r) {
      const FunctionRun* f = s.runs[r];
      if (!f) continue;
      total_calls += f->calls;
      if (f->calls < need_calls || f->histogram.count() < need_calls) continue;
      if (spec.is_mean)
        samples[i].add_mean_run(*f, r, plan.offset(i, r));
      else if (window.use)
        samples[i].add_window_mean_run(f->histogram, window.lo, window.hi, r, plan.offset(i, r));
      else
        samples[i].add_quantile_run(*cursors[i][r], spec.q, r, plan.offset(i, r));
    }
    (i == 0 ? qc.base_runs_used : qc.head_runs_used) = static_cast<int>(samples[i].runs());
    if (s.runs.empty() || total_calls == 0) {
      qc.why.kind = Why::Kind::kNoCalls;
      qc.why.side = s.label;
      qc.more_runs_would_help = s.runs.empty();
      return;
    }
    if (static_cast<int>(s.runs.size()) < o.min_runs) {
      qc.too_few(Why::Kind::kTooFewRuns, static_cast<int>(s.runs.size()), o.min_runs, s.label);
      return;
    }
    if (static_cast<int>(samples[i].runs()) < o.min_runs) {
      qc.why.kind = Why::Kind::kTooFewCallsPerRun;
      qc.why.side = s.label;
      qc.why.need_calls = need_calls;
      qc.why.need_runs = o.min_runs;
      qc.why.have = static_cast<int>(samples[i].runs());
      qc.why.calls_per_run = s.calls_per_run();
      return;
    }
  }
  const RatioInterval r = ratio_over_runs(samples[0], samples[1], bootstrap_options(o, test_seed(o.seed, function, spec.name)),
                                          plan.paired, &qc.units);
  if (plan.paired && qc.units < o.min_runs) {
    qc.too_few(Why::Kind::kTooFewPairs, qc.units, o.min_runs);
    qc.why.need_calls = need_calls;
    return;
  }
  take_interval(qc, r, plan.paired);
}

// Runs fn(0..n-1) on up to `threads` threads (0: one per hardware thread). Each test's resamples
// depend on its seed only, so the result is the same for any number of threads. The first
// exception thrown by fn is rethrown here after all threads have stopped.
void for_each_parallel(size_t n, unsigned threads, const std::function<void(size_t)>& fn) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, (n + 15) / 16));  // >= 16 functions each
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    try {
      for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = n;  // stop the others early
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

bool runs_are_paired(const std::vector<RunResult>& base, const std::vector<RunResult>& head, Pairing pairing) {
  if (pairing == Pairing::kOff || base.empty() || head.empty()) return false;
  if (pairing == Pairing::kOn) return true;
  for (const auto& r : base)
    if (r.variant != "base") return false;
  for (const auto& r : head)
    if (r.variant != "head") return false;
  return true;
}

// Per side, run and function: log p50 of the run's calls, NaN below the calls p50 needs (the
// central statistic the speed factors are made of, whatever quantiles are compared). A function
// whose probes count calls without timing them (calls: entry, chosen for the sampled instrument)
// has no p50 after the first pair: it contributes its sampled CPU per call instead (self samples,
// at least kMinSpeedSamples a run), in every run, so that each function's deviations stay of one
// kind. Without this, a workload whose functions mostly go to samples lost its speed
// normalization after the switch (fewer than 5 functions with a p50 in every run).
constexpr uint64_t kMinSpeedSamples = 10;

SpeedFactors speed_of(const RunIndex* index[2], const std::vector<std::string>& names, const CompareOptions& o) {
  const uint64_t need = min_calls_per_run(QuantileSpec::parse("p50"), o.min_tail_calls);
  std::vector<std::vector<double>> p50[2], sampled[2];
  std::vector<size_t> have_p50(names.size(), 0), have_sampled(names.size(), 0);
  for (int side = 0; side < 2; ++side)
    for (size_t r = 0; r < index[side]->size(); ++r) {
      std::vector<double> p(names.size(), kNaN), s(names.size(), kNaN);
      for (size_t f = 0; f < names.size(); ++f) {
        const FunctionRun* fr = index[side]->find(r, names[f]);
        if (!fr) continue;
        if (fr->calls >= need && fr->histogram.count() >= need) {
          p[f] = std::log(std::max(fr->histogram.quantile(0.5), 1.0));
          ++have_p50[f];
        }
        const double v = fr->self_samples >= kMinSpeedSamples ? sampled_ns_per_call(index[side]->run(r), *fr) : kNaN;
        if (std::isfinite(v) && v > 0) {
          s[f] = std::log(std::max(v, 1.0));
          ++have_sampled[f];
        }
      }
      p50[side].push_back(std::move(p));
      sampled[side].push_back(std::move(s));
    }
  for (size_t f = 0; f < names.size(); ++f) {
    if (have_sampled[f] <= have_p50[f]) continue;
    for (int side = 0; side < 2; ++side)
      for (size_t r = 0; r < p50[side].size(); ++r) p50[side][r][f] = sampled[side][r][f];
  }
  return estimate_speed(p50);
}

// The common-mode shift: head/base of the runs' speed factors (scaled to 1 ms so that the
// floor of log_ns never binds), paired or not like the functions.
QuantileComparison common_shift_of(const SpeedFactors& sf, bool paired, const CompareOptions& o) {
  QuantileComparison qc;
  qc.name = "all functions";
  qc.band = o.thresholds.defaults;
  RunSamples samples[2];
  for (int side = 0; side < 2; ++side)
    for (size_t r = 0; r < sf.all[side].size(); ++r) samples[side].add_point_run(1e6 * std::exp(sf.all[side][r]), r);
  const RatioInterval r =
      ratio_over_runs(samples[0], samples[1], bootstrap_options(o, test_seed(o.seed, "(all functions)", "speed")), paired,
                      &qc.units);
  if (qc.units < o.min_runs) {
    qc.too_few(paired ? Why::Kind::kTooFewPairs : Why::Kind::kTooFewRuns, qc.units, o.min_runs);
    return qc;
  }
  take_interval(qc, r, paired);
  return qc;
}

double key_ratio(const FunctionComparison& f) {
  double k = -std::numeric_limits<double>::infinity();
  for (const auto& q : f.quantiles)
    if (q.tested()) k = std::max(k, q.ratio);
  return k;
}

// Per function and quantile, its interval, in parallel. sides[i] keeps function i's runs.
void estimate_functions(Comparison& c, const std::vector<std::string>& names, const RunIndex& base_index,
                        const RunIndex& head_index, const InfoIndex& base_infos, const InfoIndex& head_infos,
                        const SpeedFactors& speed, const CompareOptions& o, std::vector<std::pair<Side, Side>>& sides) {
  // Quantiles are estimated in ascending q (results stay in the options' order), so that each
  // run's histogram is walked once.
  std::vector<size_t> by_q(o.quantiles.size());
  for (size_t k = 0; k < by_q.size(); ++k) by_q[k] = k;
  std::stable_sort(by_q.begin(), by_q.end(), [&](size_t a, size_t b) { return o.quantiles[a].q < o.quantiles[b].q; });
  sides.resize(names.size());
  c.functions.resize(names.size());
  auto one_function = [&](size_t i) {
    const std::string& name = names[i];
    Side b = side_of("base", name, base_index, base_infos);
    Side h = side_of("head", name, head_index, head_infos);
    FunctionComparison& fc = c.functions[i];
    fc.name = name;
    fc.base_calls_per_run = b.calls_per_run();
    fc.head_calls_per_run = h.calls_per_run();
    fc.base_counters = b.counters();
    fc.head_counters = h.counters();
    Cursors cursors[2] = {cursors_of(b), cursors_of(h)};
    fc.quantiles.resize(o.quantiles.size());
    for (size_t k : by_q) {
      const auto& spec = o.quantiles[k];
      QuantileComparison& qc = fc.quantiles[k];
      qc.name = spec.name;
      qc.band = o.thresholds.lookup(name, spec.name);
      qc.ratio = qc.ci_low = qc.ci_high = kNaN;
      qc.p_regression = qc.p_regression_adjusted = qc.p_improvement = qc.p_improvement_adjusted = kNaN;
      estimate(qc, spec, name, b, h, cursors, TestPlan{speed.usable ? &speed : nullptr, i, c.paired}, o);
    }
    sides[i] = {std::move(b), std::move(h)};
  };
  for_each_parallel(names.size(), o.threads, one_function);

}

// Holm over the family of tested intervals (and the common shift when it is tested), then each
// test's verdict, each function's verdict and its calls-per-run change.
void decide_all(Comparison& c, const SpeedFactors& speed, const std::vector<std::pair<Side, Side>>& sides,
                const CompareOptions& o) {
  // The family: every test that produced an interval, and the common shift when it is tested
  // (last). Regressions and improvements are two families, each held to (1 - confidence) / 2, so
  // the pair never exceeds 1 - confidence.
  std::vector<QuantileComparison*> family;
  for (auto& f : c.functions)
    for (auto& q : f.quantiles)
      if (q.tested()) family.push_back(&q);
  if (speed.usable) {
    c.common_shift = common_shift_of(speed, c.paired, o);
    c.common_shift_tested = c.paired && c.common_shift.tested();
    if (c.common_shift_tested) family.push_back(&c.common_shift);
  }
  c.tests = static_cast<int>(family.size());
  decide_family(family, o);
  if (!c.common_shift_tested && c.common_shift.tested()) {  // shown, never counted: decided alone, unadjusted
    c.common_shift.p_regression_adjusted = c.common_shift.p_regression;
    c.common_shift.p_improvement_adjusted = c.common_shift.p_improvement;
    decide_test(c.common_shift, o, 1);
  }
  for (size_t i = 0; i < c.functions.size(); ++i) {
    auto& f = c.functions[i];
    for (auto& q : f.quantiles) {
      if (q.tested()) {
        // Not for a quantile between two modes: it was compared by the mean of the calls around it,
        // whose sampling is not the quantile's.
        if ((q.verdict == Verdict::kInconclusive || q.verdict == Verdict::kSuspect) && q.units_to_decide > 0 &&
            !q.window.used) {
          const QuantileSpec spec = QuantileSpec::parse(q.name);
          if (!spec.is_mean)
            q.noise_sources = noise_sources(sides[i].first.runs, sides[i].first.durations, sides[i].second.runs,
                                            sides[i].second.durations, spec.q);
        }
      }
    }
    f.verdict = function_verdict(f.quantiles);
    const double bc = f.base_calls_per_run, hc = f.head_calls_per_run;
    f.calls_ratio = bc > 0 ? hc / bc : (hc > 0 ? std::numeric_limits<double>::infinity() : kNaN);
    f.calls_changed = !std::isnan(f.calls_ratio) &&
                      (f.calls_ratio >= o.calls_ratio_threshold || f.calls_ratio <= 1 / o.calls_ratio_threshold);
    f.calls_failed = f.calls_changed && (o.calls_policy == CallsPolicy::kFailOnChange ||
                                         (o.calls_policy == CallsPolicy::kFailOnIncrease && f.calls_ratio > 1));
    if (f.calls_failed) f.verdict = Verdict::kRegression;
    function_findings(f, sides[i].first.info, sides[i].second.info, sides[i].first.runs.size(),
                      sides[i].second.runs.size(), o, c.findings);
  }

}

// Findings about the two results as wholes, first in the list.
void whole_result_findings(Comparison& c, const ResultFile& base_meta, const ResultFile& head_meta,
                           const SpeedFactors& speed) {
  uint64_t base_calls = 0, head_calls = 0;
  for (const auto& f : c.functions) {
    base_calls += f.base_counters.calls;
    head_calls += f.head_counters.calls;
  }
  std::vector<Finding> context;
  context_findings(base_meta.context, head_meta.context, context);
  if (base_meta.partial) context.push_back({Finding::Kind::kPartial, {}, "", "base", "", "", base_meta.partial_reason});
  if (head_meta.partial) context.push_back({Finding::Kind::kPartial, {}, "", "head", "", "", head_meta.partial_reason});
  // No function compared (a benchmarks-only config): no call was expected.
  if (base_calls == 0 && !c.functions.empty()) context.push_back({Finding::Kind::kNoCalls, {}, "", "base"});
  if (head_calls == 0 && !c.functions.empty()) context.push_back({Finding::Kind::kNoCalls, {}, "", "head"});
  const QuantileComparison& shift = c.common_shift;
  if (speed.usable && !c.common_shift_tested && shift.tested() &&
      (shift.ci_low > 1 + shift.band.regression || shift.ci_high < 1 - shift.band.improvement)) {
    Finding f{Finding::Kind::kCommonShift};
    f.ratio = shift.ratio;
    f.low = shift.ci_low;
    f.high = shift.ci_high;
    context.push_back(std::move(f));
  }
  c.findings.insert(c.findings.begin(), context.begin(), context.end());
}

}  // namespace

Comparison compare(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                   const ResultFile& base_meta, const ResultFile& head_meta, const CompareOptions& o) {
  o.validate();
  Comparison c;
  c.base_runs = static_cast<int>(base_runs.size());
  c.head_runs = static_cast<int>(head_runs.size());
  const auto base_names = names_of(base_runs, base_meta);
  const auto head_names = names_of(head_runs, head_meta);
  c.only_in_base = names_missing(base_names, head_names);
  c.only_in_head = names_missing(head_names, base_names);
  std::vector<std::string_view> common;
  std::set_intersection(base_names.begin(), base_names.end(), head_names.begin(), head_names.end(),
                        std::back_inserter(common));
  const std::vector<std::string> names(common.begin(), common.end());
  const RunIndex base_index = index_runs(base_runs);
  const RunIndex head_index = index_runs(head_runs);
  c.paired = runs_are_paired(base_runs, head_runs, o.pairing);
  c.suspects_fail = o.fail_on_suspect;
  const RunIndex* indexes[2] = {&base_index, &head_index};
  const SpeedFactors speed = o.normalize_speed ? speed_of(indexes, names, o) : SpeedFactors{};
  c.speed_normalized = speed.usable;
  std::vector<std::pair<Side, Side>> sides;
  estimate_functions(c, names, base_index, head_index, index_infos(base_meta), index_infos(head_meta), speed, o,
                     sides);
  decide_all(c, speed, sides, o);
  whole_result_findings(c, base_meta, head_meta, speed);
  std::stable_sort(c.functions.begin(), c.functions.end(), [](const FunctionComparison& a, const FunctionComparison& b) {
    if (a.verdict != b.verdict) return a.verdict < b.verdict;
    const double ka = key_ratio(a), kb = key_ratio(b);
    if (ka != kb) return ka > kb;
    return a.name < b.name;
  });
  for (const auto& f : c.functions) ++c.counts[f.verdict];

  c.method_facts.speed_fitted = speed.usable && c.paired && o.fit_speed_elasticity;
  if (o.normalize_speed && !speed.usable) c.method_facts.speed_not_used = speed.why_not;
  c.method_facts.resamples = o.resamples;
  c.method_facts.confidence = o.confidence;
  c.method_facts.equivalence_alpha = o.equivalence_alpha;
  c.method_facts.outlier_sigmas = o.outlier_sigmas;
  c.method_facts.multiplicity = o.multiplicity;
  c.method_facts.normalize_speed = o.normalize_speed;
  c.method_facts.first_look = o.first_look;
  c.method_facts.last_look = o.last_look;
  uint64_t base_calls = 0, head_calls = 0;
  for (const auto& f : c.functions) {
    base_calls += f.base_counters.calls;
    head_calls += f.head_counters.calls;
  }
  // No function compared at all (a benchmarks-only config): no call was expected.
  if ((!c.functions.empty() && (base_calls == 0 || head_calls == 0)) ||
      (o.require_sufficient_data && c.counts.insufficient_data > 0))
    c.measured_too_little = true;
  return c;
}

// For tests made outside compare() (benchmark metrics): the same interval and verdict steps.
void fill_interval(QuantileComparison& qc, const RatioInterval& r, bool paired) { take_interval(qc, r, paired); }

SpeedFactors speed_factors(const std::vector<RunResult>& base_runs, const std::vector<RunResult>& head_runs,
                           const CompareOptions& o) {
  if (!o.normalize_speed) return {};
  const ResultFile no_meta;
  const auto base_names = names_of(base_runs, no_meta), head_names = names_of(head_runs, no_meta);
  std::vector<std::string_view> common;
  std::set_intersection(base_names.begin(), base_names.end(), head_names.begin(), head_names.end(),
                        std::back_inserter(common));
  const std::vector<std::string> names(common.begin(), common.end());
  const RunIndex base_index = index_runs(base_runs), head_index = index_runs(head_runs);
  const RunIndex* indexes[2] = {&base_index, &head_index};
  return speed_of(indexes, names, o);
}

}  // namespace gate::stats
