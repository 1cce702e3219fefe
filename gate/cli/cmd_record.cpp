// `gate record`: measure the workload and store the result as a baseline, atomically, and only
// when every run succeeded and every declared function (not marked optional) was called.
// Replacing an existing baseline takes --force.
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "baselines/baseline_file.hpp"
#include "cli/profile_flags.hpp"
#include "cli/report_flags.hpp"
#include "verdict/baseline_calls.hpp"
#include "verdict/config_options.hpp"
#include "common/error.hpp"
#include "explain/run_notes_text.hpp"
#include "runner/coverage.hpp"
#include "profile/profile_files.hpp"

namespace gate::cli {

std::function<int()> add_record(CLI::App& app, const Globals& g) {
  struct Args {
    MeasureFlags m;
    std::string baseline;
    bool force = false;
    ProfileFlags profile;
  };
  auto a = std::make_shared<Args>();
  add_measure_flags(app, a->m);
  option(app, "-b,--baseline", Rerun::kNoReport, a->baseline,
         "Baseline file to write (default: config's baseline, else baselines/NAME.json)");
  flag(app, "-f,--force", Rerun::kNoReport, a->force, "Replace an existing baseline");
  add_profile_flag(app, a->profile);
  app.footer(
      "Examples:\n"
      "  gate record -c examples/shop/gate.yaml --runs 10\n"
      "  gate record -c gate.yaml --baseline baselines/main.json --force   # accept a new baseline\n"
      "  gate record -c gate.yaml --profile --force   # also baselines/NAME.pb.gz, for gate check --profile");
  return [a, &g]() -> int {
    runner::SignalWatch signals;
    const runner::Config cfg = load_measured_config(a->m);
    const std::string path = a->baseline.empty() ? baselines::default_path(cfg.name, cfg.baseline, cfg.dir) : a->baseline;
    const std::string replaced = baselines::check_overwrite(path, a->force) ? " (replaced the previous baseline)" : "";
    runner::MeasureOptions mo = measure_options(a->m, g);
    const Sampling sampling = start_sampling_built(profile_hz(a->profile, cfg), cfg, mo, &signals);
    runner::Measurement m = runner::measure(cfg, mo, &signals);
    if (m.failure) {
      std::fprintf(stderr, "gate: no baseline written: a failed or interrupted run is never a baseline\n");
      throw *m.failure;
    }
    for (const auto& f : runner::uncalled_functions(m.result))
      std::fprintf(stderr, "gate: warning: %s\n", explain::uncalled(f).c_str());
    verdict::require_calls_for_baseline(m.result, cfg, display_path(path));  // unless declared optional
    save_result_file(path, m.result);
    g.log("recorded " + path + ": " + std::to_string(m.result.runs.size()) + " runs, " +
          std::to_string(m.result.functions.size()) + " functions" + replaced);
    if (auto* rec = sampling.for_profiles())
      write_profile_file(*rec, "", profile::baseline_profile_path(path), "the baseline's runs", g,
                         "; gate check --profile compares the head with it");
    return 0;
  };
}

}  // namespace gate::cli
