// `gate ab`: base and head binaries measured in the same job, runs interleaved in a seeded random
// order (A B B A ...), or both run at once in time slices (--slice-ms), so that machine drift hits
// both alike; then the same verdict as check. The work is verdict::ab.
#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/profile_flags.hpp"
#include "cli/report_flags.hpp"
#include "cli/shard_flags.hpp"
#include "cli/verdict_flags.hpp"
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
  option(app, "--base-binary", Rerun::kCarried, a->base_binaries,
         "The binary built from the base commit; repeat it for layout variants of that commit "
         "(-ldflags=-randlayout=SEED builds): units are spread over them and the verdict covers layout")
      ->required()
      ->allow_extra_args(false)
      ->take_all();
  option(app, "--head-binary", Rerun::kCarried, a->head_binaries,
         "The binary built from the head commit; repeat it for layout variants, as --base-binary")
      ->required()
      ->allow_extra_args(false)
      ->take_all();
  option(app, "--max-runs", Rerun::kCarried, a->max_runs, "Runs per side, at most, while a verdict is inconclusive");
  option(app, "--seed", Rerun::kCarried, a->seed, "Seed of the run order (default 1: the same order every time)");
  option(app, "--slice-ms", Rerun::kCarried, a->slice_ms,
         "Time-sliced interleaving: run both workloads at once and switch between them every this many "
         "ms; paired slices replace pairs of runs (runs and --max-runs then count pairs of slices). "
         "0 (default): whole runs");
  option(app, "--out-base", Rerun::left_out("where the base's result file is written"), a->out_base,
         "Write the base result JSON here");
  option(app, "--out-head", Rerun::left_out("where the head's result file is written"), a->out_head,
         "Write the head result JSON here");
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
    require_one_binary_a_side(hz, a->base_binaries, a->head_binaries);
    const auto shard = sharding::plan_shard(a->shard.shard, a->shard.partial_out, hz, cfg, mo, a->max_runs, a->seed,
                                            a->base_binaries, a->head_binaries);
    const auto& base_binaries = shard ? shard->base_binaries : a->base_binaries;  // a shard's layout order
    const auto& head_binaries = shard ? shard->head_binaries : a->head_binaries;
    const Sampling sampling = start_ab_sampling(hz, cfg, base_binaries, head_binaries, mo.session);
    if (shard) {
      verdict::AbJudged j = verdict::ab(cfg, base_binaries, head_binaries, mo, shard->shard_seed,
                                        shard->pairs, &signals, a->slice_ms);
      return finish_shard(*shard, j, cfg, a->shard);
    }
    verdict::AbJudged j = verdict::ab(cfg, a->base_binaries, a->head_binaries, mo, a->seed, a->max_runs, &signals,
                                      a->slice_ms);
    annotate::note_code(j.notes, j.comparison, a->base_binaries.front(), a->head_binaries.front(),
                        [&g](const std::string& line) { g.log(line); });
    if (auto* rec = sampling.for_profiles()) write_ab_profiles(*rec, j, a->report.report_dir, g);
    if (!a->out_base.empty()) save_result_file(a->out_base, j.base.result);
    if (!a->out_head.empty()) save_result_file(a->out_head, j.head.result);
    verdict::throw_failure(j);
    note_thresholds_ref(thresholds, j.head.result.functions, a->report.notices);
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
    return print_report(j.comparison, g, a->report, rc);
  };
}

}  // namespace gate::cli
