// `gate ab`: base and head binaries measured in the same job, runs interleaved in a seeded random
// order (A B B A ...), or both run at once in time slices (--slice-ms), so that machine drift hits
// both alike; then the same verdict as check.
// The work is verdict::ab.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/flag_table.hpp"
#include "cli/profile_flags.hpp"
#include "cli/report_flags.hpp"
#include "cli/shard_flags.hpp"
#include "cli/verdict_flags.hpp"
#include "profile/profile_files.hpp"
#include "annotate/change_notes.hpp"
#include "verdict/judge.hpp"

namespace gate::cli {

std::function<int()> add_ab(CLI::App& app, const Globals& g) {
  struct Args {
    MeasureFlags m;
    std::vector<std::string> base_binaries, head_binaries;
    int max_runs = 0;
    uint64_t seed = 1;
    double slice_ms = 0;
    std::string out_base, out_head;
    std::string thresholds_ref;
    ReportFlags report;
    SuspectFlags suspect;
    ProfileFlags profile;
    ShardFlags shard;
  };
  auto a = std::make_shared<Args>();
  add_measure_flags(app, a->m);
  app.add_option("--base-binary", a->base_binaries,
                 "The binary built from the base commit; repeat it for layout variants of that commit "
                 "(-ldflags=-randlayout=SEED builds): units are spread over them and the verdict covers layout")
      ->required()
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--head-binary", a->head_binaries,
                 "The binary built from the head commit; repeat it for layout variants, as --base-binary")
      ->required()
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--max-runs", a->max_runs, "Runs per side, at most, while a verdict is inconclusive");
  app.add_option("--seed", a->seed, "Seed of the run order (default 1: the same order every time)");
  app.add_option("--slice-ms", a->slice_ms,
                 "Time-sliced interleaving: run both workloads at once and switch between them every this many "
                 "ms; paired slices replace pairs of runs (runs and --max-runs then count pairs of slices). "
                 "0 (default): whole runs");
  app.add_option("--out-base", a->out_base, "Write the base result JSON here");
  app.add_option("--out-head", a->out_head, "Write the head result JSON here");
  add_thresholds_ref_flag(app, a->thresholds_ref, "ci/pre-merge.sh passes the merge-base");
  add_suspect_flags(app, a->suspect, true);
  add_report_flags(app, a->report);
  add_profile_flag(app, a->profile);
  add_shard_flags(app, a->shard);
  app.footer(
      "gate ab builds nothing: build both commits first (the config's build step is skipped); below,\n"
      "base/shop is the base commit's build and bin/shop the head's.\n"
      "Examples:\n"
      "  gate ab -c gate.yaml --base-binary base/shop --head-binary bin/shop --runs 10\n"
      "  gate ab -c gate.yaml --base-binary base/shop --head-binary bin/shop --slice-ms 200 --runs 10 --max-runs 30\n"
      "    (both run at once, switched every 200 ms; calls that straddle a switch are dropped and counted)\n"
      "  gate ab -c gate.yaml --base-binary base/shop --head-binary bin/shop --exclude-preemption\n"
      "    (each call timed minus the time other processes had its thread's CPU: for loaded CI machines)\n"
      "  gate ab -c gate.yaml --base-binary base/shop --base-binary base/shop --head-binary bin/shop --head-binary bin/shop\n"
      "    (layout variants: give each -ldflags=-randlayout=SEED build of a commit; ci/pre-merge.sh builds them)\n"
      "  gate ab -c gate.yaml --base-binary base/shop --head-binary bin/shop --runs 12 --shard 2/3 --partial-out shard2.json\n"
      "    (one shard of a CI matrix: 4 of the 12 pairs; then gate merge -c gate.yaml shard1.json shard2.json shard3.json)\n"
      "A unit lasts at least min_unit_seconds (config, default 1 s): a shorter workload runs several times\n"
      "a unit, both sides alternating inside it.\n"
      "The workload command runs the binary under test through $GATE_BINARY (set by gate for each run).");
  return [a, &g, &app]() -> int {
    runner::SignalWatch signals;
    runner::Config cfg = runner::load_config(a->m.config);
    const ThresholdsRef thresholds = apply_thresholds_ref(a->thresholds_ref, cfg, a->report.notices);
    apply_suspect_flags(a->suspect, cfg, a->m.runs, a->max_runs);
    apply_run_as(a->m, cfg);
    validate_report_flags(a->report, &cfg);  // usage errors before measuring
    verdict::require_sliceable(cfg, a->slice_ms);
    runner::MeasureOptions mo = measure_options(a->m, g);
    const int hz = profile_hz(a->profile, cfg);
    if (hz > 0 && (a->base_binaries.size() > 1 || a->head_binaries.size() > 1))
      throw Error::make("--profile with " + std::to_string(std::max(a->base_binaries.size(), a->head_binaries.size())) +
                            " layout variants a side",
                        "a side's samples are symbolised with one binary, and each variant places the code at other "
                        "addresses",
                        "profile in a gate ab of its own with one --base-binary and one --head-binary (e.g. the first "
                        "variant of each side), or leave --profile (and profile:) out here");
    const auto shard = sharding::plan_shard(a->shard.shard, a->shard.partial_out, hz, cfg, mo, a->max_runs, a->seed,
                                            a->base_binaries, a->head_binaries);
    const auto& base_binaries = shard ? shard->base_binaries : a->base_binaries;  // a shard's layout order
    const auto& head_binaries = shard ? shard->head_binaries : a->head_binaries;
    // One sampler side per binary: a layout variant's code lies at other addresses.
    std::map<std::string, std::string> sides;
    for (const auto* side : {&base_binaries, &head_binaries}) {
      const std::string name = side == &base_binaries ? "base" : "head";
      for (size_t i = 0; i < side->size(); ++i)
        sides[runner::sample_label(name, side->size() > 1 ? static_cast<int>(i) : -1)] = (*side)[i];
    }
    const Sampling sampling = start_sampling(hz, cfg, sides, mo.session);
    if (shard) {
      verdict::AbJudged j = verdict::ab(cfg, base_binaries, head_binaries, mo, shard->shard_seed,
                                        shard->pairs, &signals, a->slice_ms);
      return finish_shard(*shard, j, cfg, a->shard);
    }
    verdict::AbJudged j = verdict::ab(cfg, a->base_binaries, a->head_binaries, mo, a->seed, a->max_runs, &signals,
                                            a->slice_ms);
    const auto log = [&g](const std::string& line) { g.log(line); };
    annotate::note_code(j.notes, j.comparison, a->base_binaries.front(), a->head_binaries.front(), log);
    if (auto* rec = sampling.for_profiles()) {
      const std::string base_file = profile::side_profile_path(a->report.report_dir, "base");
      const std::string head_file = profile::side_profile_path(a->report.report_dir, "head");
      write_profile_file(*rec, "base", base_file, "base", g);
      write_profile_file(*rec, "head", head_file, "head", g);
      annotate::note_ab_profiles(j.notes, j.comparison, j.base.result, j.head.result, *rec, base_file, head_file,
                                 log);
    }
    if (!a->out_base.empty()) save_result_file(a->out_base, j.base.result);
    if (!a->out_head.empty()) save_result_file(a->out_head, j.head.result);
    verdict::throw_failure(j);
    note_thresholds_ref(thresholds, j.head.result.functions, a->report.notices);
    const stats::Comparison& c = j.comparison;
    ReportContext rc{"ab", &cfg, &j.base.result, &j.head.result};
    rc.notes = &j.notes;
    rc.rerun = rerun_args(app);
    rc.accept_note = "merge as is: gate ab compares with the base commit's binary, there is no stored baseline to update";
    auto label = [](const std::vector<std::string>& binaries) {
      return binaries.front() +
             (binaries.size() > 1 ? " (+" + std::to_string(binaries.size() - 1) + " layout variants)" : "");
    };
    rc.base_label = label(a->base_binaries);
    rc.head_label = label(a->head_binaries);
    return print_report(c, g, a->report, rc);
  };
}

}  // namespace gate::cli
