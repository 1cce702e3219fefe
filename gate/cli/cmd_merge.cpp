// `gate merge PARTIAL...`: the verdict of one gate ab split over a CI matrix (gate ab --shard K/N),
// from every shard's partial; reports and exit codes as gate ab's. The work is sharding::merge_shards.
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/report_flags.hpp"
#include "cli/verdict_flags.hpp"
#include "sharding/shards.hpp"

namespace gate::cli {

namespace {

// Per shard, how many pairs it gave, its noise and its weight: on stderr even with -q, as the
// report's preface. A shard pooled with others says so: its pairs were too few for its own noise.
void print_shards(const sharding::Merged& m) {
  for (const auto& s : m.shards) {
    char noise[32] = "n/a";
    if (s.noise > 0) snprintf(noise, sizeof noise, "%.1f%%", 100 * s.noise);
    std::string model;
    if (m.strata < 2) {
      model = "all shards' pairs pooled (gate ab's model)";
    } else if (s.stratum.size() > 1) {
      model = "pooled with shard";
      for (int k : s.stratum)
        if (k != s.index) model += " " + std::to_string(k);
      model += " (fewer than " + std::to_string(sharding::kMinOwnPairs) + " pairs for a noise model of its own)";
    } else {
      model = "its own noise model";
    }
    std::fprintf(stderr, "gate: shard %d: %d pairs on %s (%s), noise %s a pair (median p50 log-sd), weight %.2f, %s\n",
                 s.index, s.pairs, s.hostname.c_str(), s.runner_label.c_str(), noise, s.weight, model.c_str());
  }
  if (m.pooled_tests > 0)
    std::fprintf(stderr, "gate: %d tests not estimable on every shard alone: judged on all pairs pooled\n",
                 m.pooled_tests);
}

}  // namespace

std::function<int()> add_merge(CLI::App& app, const Globals& g) {
  struct Args {
    std::vector<std::string> partials;
    std::string config;
    std::string thresholds_ref;
    ReportFlags report;
    SuspectFlags suspect;
  };
  auto a = std::make_shared<Args>();
  // -c first: the reproduce line (flags.hpp) follows this order, "merge -c gate.yaml PARTIAL...".
  option(app, "-c,--config", Rerun::carried_as("-c"), a->config,
         "The gate.yaml the shards measured with (its thresholds and quantiles)")
      ->required();
  option(app, "partials", Rerun::kCarried, a->partials, "Every shard's partial (gate ab --shard K/N --partial-out FILE)")
      ->required();
  add_thresholds_ref_flag(app, a->thresholds_ref,
                          "ci/pre-merge.sh --build-only writes the merge-base to thresholds-ref in its binaries folder");
  add_suspect_flags(app, a->suspect, false);
  add_report_flags(app, a->report);
  app.footer(
      "Pairs stay paired within their shard, so each runner's speed cancels in its own pairs. Each shard\n"
      "(runner) is a stratum with its own noise: per test, the shards' estimates are combined with\n"
      "inverse-variance weights (a noisy runner weighs less), then judged as one gate ab would, with the\n"
      "same correction for the family of tests. A shard of fewer than 3 pairs is pooled with others.\n"
      "Partials of another config, other binaries, another shard count or seed, a shard twice or missing are\n"
      "refused, naming the file and the difference. --thresholds-ref REF does what it does for gate ab: the\n"
      "config's verdict settings as committed at REF (the base commit) judge, with a notice when this branch\n"
      "changed them; --baseline-ref REF only says whether it did (a merge reads no stored baseline).\n"
      "Examples:\n"
      "  gate merge -c gate.yaml shard1.json shard2.json shard3.json\n"
      "  gate merge -c gate.yaml --thresholds-ref \"$(cat gate-binaries/thresholds-ref)\" partials/*.json\n"
      "  gate merge -c gate.yaml partials/*.json --format markdown --output report.md");
  return [a, &g, &app]() -> int {
    runner::Config cfg = runner::load_config(a->config);
    const ThresholdsRef thresholds = apply_thresholds_ref(a->thresholds_ref, cfg, a->report.notices);
    apply_suspect_flags(a->suspect, cfg, cfg.runs, cfg.max_runs);
    validate_report_flags(a->report, &cfg);
    std::vector<Partial> parts;
    for (const auto& path : a->partials) parts.push_back(load_partial(path));
    const sharding::Merged m = sharding::merge_shards(cfg, std::move(parts), a->partials);
    print_shards(m);
    note_thresholds_ref(thresholds, m.head.functions, a->report.notices);
    ReportContext rc{"ab", &cfg, &m.base, &m.head};
    rc.notes = &m.notes;
    rc.rerun = rerun_args(app);
    rc.accept_note = "merge as is: gate ab compares with the base commit's binary, there is no stored baseline to update";
    rc.base_label = m.base.context.binary_path + " (" + std::to_string(m.shards.size()) + " shards)";
    rc.head_label = m.head.context.binary_path + " (" + std::to_string(m.shards.size()) + " shards)";
    return print_report(m.comparison, g, a->report, rc);
  };
}

}  // namespace gate::cli
