// `gate calibrate`: an A/A run of the user's own workload (the same binary as base and head, runs
// interleaved as gate ab does) that prints, per function, the measured run-to-run noise, the
// smallest slowdown gate would catch at the configured runs, and the runs a given slowdown needs.
#include <algorithm>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/profile_flags.hpp"
#include "cli/report_flags.hpp"
#include "common/error.hpp"
#include "explain/aa_noise_text.hpp"
#include "stats/aa_noise.hpp"
#include "calibrate/calibration.hpp"
#include "profile/profile_files.hpp"
#include "annotate/change_notes.hpp"

namespace gate::cli {

std::function<int()> add_calibrate(CLI::App& app, const Globals& g) {
  struct Args {
    MeasureFlags m;
    double slowdown = 0;
    uint64_t seed = 1;
    ProfileFlags profile;
  };
  auto a = std::make_shared<Args>();
  add_measure_flags(app, a->m);
  option(app, "--slowdown", Rerun::kNoReport, a->slowdown,
         "The slowdown to size runs for, as a fraction (0.2 = 20%; default: twice the threshold)")
      ->check(CLI::Range(0.001, 10.0));  // a negative or zero slowdown is a typo, not "the default"
  option(app, "--seed", Rerun::kNoReport, a->seed, "Seed of the run order (default 1)");
  add_profile_flag(app, a->profile);
  app.footer(
      "gate calibrate runs the workload as an A/A (the same binary on both sides, runs interleaved as in\n"
      "gate ab) and prints per function what a comparison on this machine can see: the run-to-run noise,\n"
      "the smallest slowdown caught at the config's runs and max_runs, and the pairs of runs a given\n"
      "slowdown needs. Run it on the machine your CI uses. 'from calls' is the share of the noise that is\n"
      "chance in which calls a run made: a longer run shrinks it; the rest, more runs average out. 'calls\n"
      "at' is when in the run the calls were made (mean +- sd, as shares of the run): calls spread over\n"
      "the run meet more of the machine's speed swings in a longer run; calls made in a burst do not.\n"
      "A unit lasts at least min_unit_seconds (config, default 1 s): 'units:' says how many executions of\n"
      "the workload made one and why.\n"
      "Examples:\n"
      "  gate calibrate -c gate.yaml --runs 12\n"
      "  gate calibrate -c gate.yaml --slowdown 0.1    # size the runs for a 10% slowdown\n"
      "  gate calibrate -c gate.yaml --profile    # also profile-base/head.pb.gz and the A/A frame test");
  return [a, &g]() -> int {
    runner::SignalWatch signals;
    runner::Config cfg = load_measured_config(a->m);
    auto mo = measure_options(a->m, g);
    if (!mo.skip_build) runner::run_build(cfg, [&](const std::string& l) { g.log(l); }, &signals);
    const int pairs = stats::aa_pairs(a->m.runs, cfg.runs);
    const Sampling sampling = start_sampling(profile_hz(a->profile, cfg), cfg, {{"base", cfg.binary}, {"head", cfg.binary}}, mo.session);
    const calibrate::Calibrated c = calibrate::run_calibration(cfg, mo, pairs, a->seed, a->slowdown, &signals);
    if (auto* rec = sampling.for_profiles()) {
      for (const char* side : {"base", "head"})
        write_profile_file(*rec, side, profile::side_profile_path("", side), std::string("the A/A's ") + side, g);
      annotate::note_aa_profiles(c.aa.comparison, c.aa.base.result, c.aa.head.result, *rec,
                                 [&g](const std::string& l) { g.log(l); });
    }
    std::fputs(explain::calibration_text(c.aa.comparison, c.figures.calibration, c.figures.setting).c_str(), stdout);
    return 0;
  };
}

}  // namespace gate::cli
