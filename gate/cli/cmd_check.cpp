// `gate check`: measure head, compare with the stored baseline, and while some verdict is
// inconclusive run more (up to max_runs); exit 1 on a regression. The work is verdict::check.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "baselines/baseline_file.hpp"
#include "cli/profile_flags.hpp"
#include "cli/report_flags.hpp"
#include "cli/verdict_flags.hpp"
#include "profile/profile_files.hpp"
#include "verdict/judge.hpp"
#include "annotate/change_notes.hpp"

namespace gate::cli {

std::function<int()> add_check(CLI::App& app, const Globals& g) {
  struct Args {
    MeasureFlags m;
    std::string baseline;
    int max_runs = 0;
    std::string out;
    ReportFlags report;
    SuspectFlags suspect;
    ProfileFlags profile;
  };
  auto a = std::make_shared<Args>();
  add_measure_flags(app, a->m);
  option(app, "-b,--baseline", Rerun::kCarried, a->baseline,
         "Baseline to compare with (default: config's baseline, else baselines/NAME.json)");
  option(app, "--max-runs", Rerun::kCarried, a->max_runs, "Run more, up to this many, while a verdict is inconclusive")
      ->check(CLI::Range(1, 10000));
  option(app, "-o,--out", Rerun::left_out("where the head's result file is written"), a->out,
         "Also write the head result JSON here");
  add_suspect_flags(app, a->suspect, true);
  add_report_flags(app, a->report);
  add_profile_flag(app, a->profile);
  app.footer(
      "Examples:\n"
      "  gate check -c examples/shop/gate.yaml\n"
      "  gate check -c gate.yaml --baseline baselines/main.json --runs 10 --max-runs 30\n"
      "  gate check -c gate.yaml --baseline-ref origin/main --report-dir gate-report   # CI: trusted baseline, all reports\n"
      "  gate check -c gate.yaml --fail-on-suspect   # also fail on a suspected regression\n"
      "  gate check -c gate.yaml --profile --report-dir gate-report   # CPU profile against baselines/NAME.pb.gz\n"
      "Exit codes: 0 no regression, 1 regression (or suspect with --fail-on-suspect), 2 usage/config/baseline error, 3 could not measure.");
  return [a, &g, &app]() -> int {
    runner::SignalWatch signals;
    runner::Config cfg = load_measured_config(a->m);
    apply_suspect_flags(a->suspect, cfg, a->m.runs, a->max_runs);
    const std::string path = a->baseline.empty() ? baselines::default_path(cfg.name, cfg.baseline, cfg.dir) : a->baseline;
    validate_report_flags(a->report, &cfg);                            // before measuring: fail fast
    const ResultFile base = load_baseline(path, cfg.path, a->report);  // from --baseline-ref when given
    // Unless told otherwise, the head is measured as the baseline was (with or without other
    // processes' preemption); told otherwise, the two cannot be compared: fail before measuring.
    runner::MeasureOptions mo = measure_options(a->m, g);
    mo.preemption_default = base.context.preemption_excluded;
    baselines::require_same_time_basis(base.context.preemption_excluded,
                                       runner::exclude_preemption(cfg, mo.exclude_preemption, mo.preemption_default),
                                       path);

    const Sampling sampling = start_sampling_built(profile_hz(a->profile, cfg), cfg, mo, &signals);
    verdict::Checked checked = verdict::check(cfg, base, mo, a->max_runs, &signals);
    if (!a->out.empty()) save_result_file(a->out, checked.head.result);
    verdict::settle(checked, base, path);
    if (auto* rec = sampling.for_profiles()) {
      const std::string head_file = profile::side_profile_path(a->report.report_dir, "head");
      write_profile_file(*rec, "", head_file, "head", g);
      annotate::note_check_profiles(checked.notes, checked.comparison, base, checked.head.result, path, *rec, head_file,
                                    [&g](const std::string& l) { g.log(l); });
    }
    const stats::Comparison& c = checked.comparison;
    const ResultFile& head = checked.head.result;
    ReportContext rc{"check", &cfg, &base, &head};
    rc.notes = &checked.notes;
    rc.rerun = rerun_args(app);
    rc.accept = {"gate", "record", "-c", a->m.config, "--baseline", display_path(path), "--force"};
    if (!a->report.baseline_ref.empty())
      rc.accept_note = "then commit " + display_path(path) + " to the branch " + a->report.baseline_ref + " names";
    rc.base_label = "baseline " + (a->report.baseline_ref.empty() ? display_path(path) : a->report.baseline_ref + ":" + display_path(path));
    rc.head_label = "this build";
    return print_report(c, g, a->report, rc);
  };
}

}  // namespace gate::cli
