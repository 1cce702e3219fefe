// `gate compare BASE.json HEAD.json`: the verdict on two result files, offline (no root).
#include <future>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/report_flags.hpp"
#include "cli/verdict_flags.hpp"
#include "verdict/judge.hpp"

namespace gate::cli {

std::function<int()> add_compare(CLI::App& app, const Globals& g) {
  struct Args {
    std::string base, head, config;
    ReportFlags report;
    SuspectFlags suspect;
  };
  auto a = std::make_shared<Args>();
  option(app, "base", Rerun::kCarried, a->base, "Baseline result (gate record / gate run --out)")->required();
  option(app, "head", Rerun::kCarried, a->head, "Result to judge")->required();
  option(app, "-c,--config", Rerun::carried_as("-c"), a->config,
         "gate.yaml whose thresholds and quantiles apply (default: built-in)");
  add_report_flags(app, a->report);
  add_suspect_flags(app, a->suspect, false);
  app.footer(
      "Examples:\n"
      "  gate compare baselines/shop.json head.json\n"
      "  gate compare base.json head.json -c gate.yaml\n"
      "  gate compare baselines/shop.json head.json --format markdown --output summary.md");
  return [a, &g, &app]() -> int {
    validate_report_flags(a->report, nullptr);  // usage errors first
    // Left to the process's exit on purpose: freeing two 10,000-function, 20-run results object by
    // object was 8% of compare's time (valgrind --tool=callgrind), and gate exits right after.
    // The two files load at once (parsing is most of compare's time); base's error, if any, is
    // reported first, as when they loaded one after the other.
    auto head_loading = std::async(std::launch::async, [&] { return new ResultFile(load_result_file(a->head)); });
    const ResultFile* base_file = nullptr;
    try {
      base_file = new ResultFile(load_baseline(a->base, a->config, a->report));
    } catch (...) {
      head_loading.wait();
      throw;
    }
    const ResultFile& base = *base_file;
    const ResultFile& head = *head_loading.get();
    std::optional<runner::Config> cfg;
    if (!a->config.empty()) cfg = runner::load_config(a->config);
    Annotations notes;
    const auto c =
        verdict::compare_files(base, a->base, head, a->head, cfg ? &*cfg : nullptr, a->suspect.fail_on_suspect, &notes);
    ReportContext rc{"compare", cfg ? &*cfg : nullptr, &base, &head};
    rc.notes = &notes;
    rc.rerun = rerun_args(app);
    rc.accept = {"cp", a->head, a->base};
    if (!a->report.baseline_ref.empty()) rc.accept_note = "then commit " + a->base + " to the branch " + a->report.baseline_ref + " names";
    rc.base_label = a->report.baseline_ref.empty() ? a->base : a->report.baseline_ref + ":" + a->base;
    rc.head_label = a->head;
    return print_report(c, g, a->report, rc);
  };
}

}  // namespace gate::cli
