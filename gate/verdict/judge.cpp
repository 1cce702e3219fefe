// check, ab and compare as library calls over the Measurer, the until-decided loop and stats.
#include "verdict/judge.hpp"

#include <algorithm>
#include <memory>
#include <set>

#include "baselines/baseline_file.hpp"
#include "explain/instruments_text.hpp"
#include "explain/run_notes_text.hpp"
#include "runner/cgroup_cpu.hpp"
#include "runner/coverage.hpp"
#include "runner/rounds.hpp"
#include "runner/run_as.hpp"
#include "runner/sliced.hpp"
#include "runner/unit_size.hpp"
#include "stats/instrument.hpp"
#include "verdict/benchmark_family.hpp"
#include "verdict/instruments.hpp"
#include "verdict/layouts.hpp"
#include "verdict/config_options.hpp"
#include "verdict/until_decided.hpp"

namespace gate::verdict {

namespace {

// A declared function never called on a side is named in every report, with its inlining status:
// its verdict ("insufficient data") alone does not say that nothing reached it.
void warn_uncalled(Annotations& notes, const ResultFile& base, const ResultFile& head) {
  for (const auto& [r, side] : {std::pair{&base, "base"}, std::pair{&head, "head"}})
    for (const auto& f : runner::uncalled_functions(*r, side)) notes.warnings.push_back(explain::uncalled(f));
  for (const auto& [r, side] : {std::pair{&base, "base"}, std::pair{&head, "head"}})  // a service's rounds
    for (const auto& n : runner::recorded_round_calls(*r, side))
      notes.warnings.push_back(explain::round_calls_warning(n));
  // Where it ran: a CPU quota that held runs back, a workload run as root (runner/cgroup_cpu, run_as).
  for (const auto& [r, side] : {std::pair{&base, "base"}, std::pair{&head, "head"}})
    if (const auto t = runner::throttled_runs(*r, side)) notes.warnings.push_back(explain::throttled(*t));
  if (const auto root = runner::root_workload(head, "")) notes.warnings.push_back(explain::root_workload(*root));
}

Budget budget(const runner::Config& cfg, const runner::MeasureOptions& opts, int max_runs) {
  Budget b{opts.runs ? opts.runs : cfg.runs, max_runs ? max_runs : cfg.max_runs};
  b.suspect_max_runs = runner::suspect_max_runs(cfg, b.runs, b.max_runs);
  return b;
}

// The comparison options of a measure-until-decided loop: its looks are part of the test.
stats::CompareOptions loop_options(const runner::Config& cfg, const std::vector<FunctionInfo>& functions,
                                   const Budget& b) {
  stats::CompareOptions o = compare_options(&cfg, functions);
  o.first_look = b.runs;
  o.last_look = b.last();
  return o;
}

void record_looks(ResultFile& r, const Budget& b) {
  if (b.last() > b.runs) r.extra["looks"] = looks_text(b.runs, b.last());
}

}  // namespace

Checked check(const runner::Config& cfg, const ResultFile& base, const runner::MeasureOptions& opts, int max_runs,
              runner::SignalWatch* signals) {
  if (!opts.skip_build) runner::run_build(cfg, opts.session.log, signals);
  runner::MeasureOptions head_opts = opts;
  // Units alike on both sides: as many executions a unit as the baseline was recorded with.
  head_opts.executions_per_unit = runner::baseline_executions_per_unit(base);
  runner::Measurer head(cfg, head_opts);
  head.warm_up(cfg.warmup_runs, signals);
  MeasuredSide side(head, signals);
  OneSide schedule(side);
  Checked out;
  const Budget plan = budget(cfg, opts, max_runs);
  out.comparison = measure_until_decided(
      schedule,
      [&] {
        return compare_with_benchmarks(base.runs, head.result().runs, base, head.result(),
                                       loop_options(cfg, head.result().functions, plan));
      },
      plan, opts.session.log);
  out.head = head.finish();
  record_looks(out.head.result, plan);
  warn_uncalled(out.notes, base, out.head.result);
  out.notes.base_executions_per_unit = out.notes.head_executions_per_unit = head_opts.executions_per_unit;
  return out;
}

void settle(Checked& c, const ResultFile& base, const std::string& base_path) {
  if (c.head.failure) throw *c.head.failure;
  baselines::require_common_functions(base, c.head.result, base_path);
  baselines::require_same_time_basis(base.context.preemption_excluded, c.head.result.context.preemption_excluded,
                                     base_path);
  if (base.context.config_hash != c.head.result.context.config_hash) {
    stats::Finding f{stats::Finding::Kind::kConfigChangedSinceBaseline};
    f.detail = base.context.config_path;
    c.comparison.findings.push_back(std::move(f));
  }
}

void require_sliceable(const runner::Config& cfg, double slice_ms) {
  if (slice_ms == 0) return;
  if (!(slice_ms >= 10)) {
    throw Error::make("--slice-ms", "is below 10 ms: every switch costs a stop, a read of the maps and cold caches",
                      "use --slice-ms 50 or more (200 ms is a good start), or 0 for whole runs", ExitCode::kUsage);
  }
  if (cfg.service && !cfg.service->ready_tcp.empty() && cfg.service->ready_tcp.find("{port}") == std::string::npos) {
    throw Error::make("--slice-ms with service.ready_tcp " + cfg.service->ready_tcp + " (" + cfg.path + ")",
                      "both sides' services run at once when sliced, and cannot both listen on one fixed address",
                      "write {port} in service.command, ready_tcp and load (gate then gives each service a free "
                      "port), or drop --slice-ms",
                      ExitCode::kUsage);
  }
  if (cfg.benchmarks != "none") {
    throw Error::make("--slice-ms with benchmarks: " + cfg.benchmarks + " (" + cfg.path + ")",
                      "a Go benchmark's ns/op is printed once per run, not per time slice",
                      "drop --slice-ms for this config", ExitCode::kUsage);
  }
}

namespace {

// One side's Measurement from its variants: the first variant's context, every variant's runs in
// the order measured (MeasuredSide::runs), the first failure of any.
runner::Measurement finish_side(std::vector<std::unique_ptr<runner::Measurer>>& variants, const MeasuredSide& side,
                                const std::vector<std::string>& binaries) {
  runner::Measurement out;
  for (size_t i = 0; i < variants.size(); ++i) {
    runner::Measurement m = variants[i]->finish();
    if (i == 0) out = std::move(m);
    else if (m.failure && !out.failure) out.failure = m.failure;
  }
  if (variants.size() == 1 && out.result.runs.size() == side.runs().size())
    for (size_t i = 0; i < out.result.runs.size(); ++i) out.result.runs[i].pilot = side.runs()[i].pilot;
  if (variants.size() > 1) {
    out.result.runs = side.runs();
    std::string list;
    for (const auto& b : binaries) list += (list.empty() ? "" : ", ") + b;
    out.result.extra["layout_binaries"] = list;
    if (out.failure) {
      out.result.partial = true;
      out.result.partial_reason = out.failure->what();
    }
  }
  return out;
}

std::vector<std::unique_ptr<runner::Measurer>> variants_of(const runner::Config& cfg,
                                                           const std::vector<std::string>& binaries,
                                                           const runner::MeasureOptions& opts, const char* side) {
  if (binaries.empty())
    throw Error::make(std::string("--") + side + "-binary", "is missing", "name the " + std::string(side) +
                      " commit's binary (repeat the option for layout variants)", ExitCode::kUsage);
  std::vector<std::unique_ptr<runner::Measurer>> out;
  for (size_t i = 0; i < binaries.size(); ++i) {
    runner::MeasureOptions o = opts;
    o.skip_build = true;
    o.binary_override = binaries[i];
    o.variant = side;
    o.layout = binaries.size() > 1 ? static_cast<int>(i) : -1;
    o.min_unit_seconds = 0;  // InterleavedPairs plans both sides' units at once
    out.push_back(std::make_unique<runner::Measurer>(cfg, o));
  }
  return out;
}

std::vector<runner::Measurer*> pointers(const std::vector<std::unique_ptr<runner::Measurer>>& v) {
  std::vector<runner::Measurer*> out;
  for (const auto& m : v) out.push_back(m.get());
  return out;
}

}  // namespace

AbJudged ab(const runner::Config& cfg, const std::vector<std::string>& base_binaries,
            const std::vector<std::string>& head_binaries, const runner::MeasureOptions& opts, uint64_t seed,
            int max_runs, runner::SignalWatch* signals, double slice_ms) {
  require_sliceable(cfg, slice_ms);
  if (slice_ms > 0 && (base_binaries.size() > 1 || head_binaries.size() > 1)) {
    throw Error::make("--slice-ms with several --base-binary or --head-binary",
                      "time slices pair one base and one head process; layout variants are measured unit by unit",
                      "drop --slice-ms, or give one binary a side", ExitCode::kUsage);
  }
  auto base = variants_of(cfg, base_binaries, opts, "base");
  auto head = variants_of(cfg, head_binaries, opts, "head");
  MeasuredSide base_side(pointers(base), signals), head_side(pointers(head), signals);
  // Time slices are their own units; whole runs are units of min_unit_seconds.
  // A service's units are its rounds (runner/rounds.hpp): alternating round by round (both services
  // up) or unit by unit (InterleavedPairs' whole runs: min_unit_seconds 0).
  const bool service_units = cfg.service && runner::service_alternation(*cfg.service) == "units";
  if (cfg.service && slice_ms == 0 && opts.session.log) opts.session.log(runner::describe_service_units(*cfg.service, true));
  InterleavedPairs whole_runs(base_side, head_side, seed,
                              cfg.service ? (service_units ? 0.0 : 1.0)
                                          : runner::min_unit_seconds(cfg, runner::UnitCommand::kAb),
                              cfg.service ? cfg.service->rounds : 0);
  SlicedPairs slices(*base.front(), *head.front(), slice_ms, seed, signals);
  AbJudged out;
  const Budget plan = budget(cfg, opts, max_runs);
  // calls: auto (issue 39): the functions the samples measure stop paying for return probes.
  // Units sized by samples (issue 39): functions auto would measure by samples but for their
  // count get longer units from the second pair on.
  // Where the executions run copies of the binary, the samples come from executions without probes
  // beside the probed ones (sampled executions), planned from a trial one a side in the first pair;
  // else the probed units grow.
  const bool trial = slice_ms == 0 && !cfg.service && opts.session.on_collected && cfg.samples_needed() &&
                     base_side.can_sample_apart() && head_side.can_sample_apart() &&
                     runner::min_unit_seconds(cfg, runner::UnitCommand::kAb) > 0;
  if (trial) whole_runs.trial_sampled();
  AfterFirstRound switching(whole_runs, [&] {
    const auto o = loop_options(cfg, head.front()->result().functions, plan);
    const double bare_s = std::max(base_side.last_sampled_seconds(), head_side.last_sampled_seconds());
    const double cost = stats::probe_cost_per_call(base.front()->result(), head.front()->result());
    const SampleSizing sizing = sample_sized_executions(cfg, base_side.runs(), head_side.runs(), o, cost,
                                                        trial && bare_s > 0 ? kMaxSampledApartSeconds : kMaxSampledUnitSeconds,
                                                        trial && bare_s > 0, bare_s);
    if (opts.session.log) {
      if (sizing.executions > 0)
        opts.session.log(explain::sampled_units_sizing(sizing.apart, sizing.executions, kTargetSamplesPerUnit,
                                                       sizing.functions));
      for (const auto& f : sizing.sparse)
        opts.session.log(explain::sparse_at_cap(f, sizing.cap, sizing.apart,
                                                sizing.apart ? kMaxSampledApartSeconds : kMaxSampledUnitSeconds));
    }
    const auto names = entry_counted_after_first_pair(cfg, base_side.runs(), head_side.runs(), o, cost);
    if (sizing.apart && sizing.executions > 0) {
      base_side.set_sampled_per_unit(sizing.executions);
      head_side.set_sampled_per_unit(sizing.executions);
    }
    if (!names.empty() || (!sizing.apart && sizing.executions > 0)) {
      const auto fixed = fixed_calls_after_first_pair(cfg, names, base_side.runs(), head_side.runs());
      std::set<std::string> set;
      for (const auto& n : names)
        if (!fixed.count(n)) set.insert(n);
      for (auto* side : {&base, &head})
        for (auto& m : *side) {
          if (!fixed.empty()) m->stop_probing(fixed);
          if (!set.empty()) m->count_calls_only(set);
        }
      // The executions are shorter now, or the units must be longer: planned again.
      whole_runs.replan(opts.session.log, sizing.apart ? 0 : sizing.executions);
    }
    // The first pair is the pilot wherever it ran the trial executions (issue 54): each function's
    // window figures (the probes' share of its window, whether it waits) are read in it, so it is in
    // no test, and the pairs the tests compare never chose how they are judged. It also measured
    // with every probe and without sampled executions, which the later pairs may not: where the plan
    // changed after it, it is a pilot too.
    if (!trial && names.empty() && sizing.executions == 0) return false;
    base_side.mark_pilots();
    head_side.mark_pilots();
    if (opts.session.log)
      opts.session.log(explain::pilot_pair(plan.runs));
    return true;
  });
  Schedule& schedule = slice_ms > 0 ? static_cast<Schedule&>(slices) : static_cast<Schedule&>(switching);
  auto base_runs = [&]() -> const std::vector<RunResult>& {
    return slice_ms > 0 ? base.front()->result().runs : base_side.runs();
  };
  auto head_runs = [&]() -> const std::vector<RunResult>& {
    return slice_ms > 0 ? head.front()->result().runs : head_side.runs();
  };
  out.comparison = measure_until_decided(
      schedule,
      [&] {
        return judge_with_layouts(base_runs(), head_runs(), base.front()->result(), head.front()->result(),
                                  loop_options(cfg, head.front()->result().functions, plan), &out.notes);
      },
      plan, opts.session.log);
  out.notes.base_executions_per_unit = slice_ms > 0 ? 1 : base_side.executions_per_unit();
  out.notes.head_executions_per_unit = slice_ms > 0 ? 1 : head_side.executions_per_unit();
  out.notes.base_layouts = static_cast<int>(base.size());
  out.notes.head_layouts = static_cast<int>(head.size());
  out.base = finish_side(base, base_side, base_binaries);
  out.head = finish_side(head, head_side, head_binaries);
  record_looks(out.base.result, plan);
  record_looks(out.head.result, plan);
  warn_uncalled(out.notes, out.base.result, out.head.result);
  if (slice_ms > 0)
    for (const auto& [r, side] : {std::pair{&out.base.result, "base"}, std::pair{&out.head.result, "head"}})
      for (auto& w : explain::slice_notes(runner::slice_notes(*r, slice_ms, side)))
        out.notes.warnings.push_back(std::move(w));
  return out;
}

void throw_failure(const AbJudged& j) {
  if (j.base.failure) throw *j.base.failure;
  if (j.head.failure) throw *j.head.failure;
}

stats::Comparison compare_files(const ResultFile& base, const std::string& base_path, const ResultFile& head,
                                const std::string& head_path, const runner::Config* cfg,
                                std::optional<bool> fail_on_suspect, Annotations* notes) {
  if (head.partial) {
    throw Error::make(head_path, "is a partial result (" + head.partial_reason + ")",
                      "compare only complete runs: re-run gate run/check", ExitCode::kMeasure);
  }
  baselines::require_common_functions(base, head, base_path);
  baselines::require_same_time_basis(base.context.preemption_excluded, head.context.preemption_excluded, base_path);
  stats::CompareOptions o = with_looks(compare_options(cfg, head.functions), head);
  if (fail_on_suspect) o.fail_on_suspect = *fail_on_suspect;
  stats::Comparison c = judge_with_layouts(base.runs, head.runs, base, head, o, nullptr);
  if (notes) warn_uncalled(*notes, base, head);
  return c;
}

}  // namespace gate::verdict
