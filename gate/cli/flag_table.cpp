// The flag table and the reproduce lines built from it. A flag that decides what is measured or how
// it is judged is carried; one that only says where output goes is left out, with the reason.
#include "cli/flag_table.hpp"

#include <algorithm>

namespace gate::cli {

namespace {

const char* const kReportGoes = "where the reports go, not the verdict";

}  // namespace

const std::vector<FlagRule>& flag_table() {
  static const std::vector<FlagRule> table = {
      // What is measured (run, record, check, ab: add_measure_flags).
      {"--config", Rerun::kCarried, "-c", nullptr},
      {"--runs", Rerun::kCarried, nullptr, nullptr},
      {"--keep-output", Rerun::kLeftOut, nullptr, "where each run's stdout and stderr are kept, not what was measured"},
      {"--attach-mode", Rerun::kCarried, nullptr, nullptr},
      {"--no-build", Rerun::kCarried, nullptr, nullptr},
      {"--true-time", Rerun::kCarried, nullptr, nullptr},
      {"--raw-times", Rerun::kCarried, nullptr, nullptr},
      {"--exclude-preemption", Rerun::kCarried, nullptr, nullptr},
      {"--no-exclude-preemption", Rerun::kCarried, nullptr, nullptr},
      {"--run-as", Rerun::kCarried, nullptr, nullptr},
      {"--recalibrate", Rerun::kLeftOut, nullptr, "measures this host's probe cost again: the cache, not the verdict"},
      // What is compared and for how long (check, compare, ab, merge).
      {"base", Rerun::kCarried, nullptr, nullptr},
      {"head", Rerun::kCarried, nullptr, nullptr},
      {"partials", Rerun::kCarried, nullptr, nullptr},
      {"--baseline", Rerun::kCarried, nullptr, nullptr},
      {"--base-binary", Rerun::kCarried, nullptr, nullptr},
      {"--head-binary", Rerun::kCarried, nullptr, nullptr},
      {"--max-runs", Rerun::kCarried, nullptr, nullptr},
      {"--seed", Rerun::kCarried, nullptr, nullptr},
      {"--slice-ms", Rerun::kCarried, nullptr, nullptr},
      {"--fail-on-suspect", Rerun::kCarried, nullptr, nullptr},
      {"--no-fail-on-suspect", Rerun::kCarried, nullptr, nullptr},
      {"--suspect-max-runs", Rerun::kCarried, nullptr, nullptr},
      {"--baseline-ref", Rerun::kCarried, nullptr, nullptr},
      {"--thresholds-ref", Rerun::kCarried, nullptr, nullptr},  // whose thresholds judge: the verdict
      // Where output goes, and what else is written.
      {"--out", Rerun::kLeftOut, nullptr, "where the head's result file is written"},
      {"--out-base", Rerun::kLeftOut, nullptr, "where the base's result file is written"},
      {"--out-head", Rerun::kLeftOut, nullptr, "where the head's result file is written"},
      {"--format", Rerun::kLeftOut, nullptr, kReportGoes},
      {"--output", Rerun::kLeftOut, nullptr, kReportGoes},
      {"--report-dir", Rerun::kLeftOut, nullptr, kReportGoes},
      {"--profile", Rerun::kLeftOut, nullptr, "CPU profiles beside the verdict, which they do not change"},
      {"--shard", Rerun::kLeftOut, nullptr, "a shard writes a partial, never a report with a reproduce line"},
      {"--partial-out", Rerun::kLeftOut, nullptr, "a shard writes a partial, never a report with a reproduce line"},
  };
  return table;
}

namespace {

// "--runs" for -n,--runs; "base" for a positional.
std::string name_of(const CLI::Option& o) {
  if (!o.get_lnames().empty()) return "--" + o.get_lnames().front();
  if (!o.get_snames().empty()) return "-" + o.get_snames().front();
  return o.get_name(true);
}

}  // namespace

const FlagRule* rule_of(const CLI::Option& o) {
  const std::string name = name_of(o);
  const auto& t = flag_table();
  const auto it = std::find_if(t.begin(), t.end(), [&](const FlagRule& r) { return name == r.name; });
  return it == t.end() ? nullptr : &*it;
}

std::vector<std::string> rerun_args(const CLI::App& command) {
  std::vector<std::string> out = {command.get_name()};
  for (const CLI::Option* o : command.get_options()) {
    if (o == command.get_help_ptr() || o->count() == 0) continue;
    const FlagRule* rule = rule_of(*o);
    if (rule && rule->rerun == Rerun::kLeftOut) continue;
    const std::string name = rule && rule->spelling ? rule->spelling : name_of(*o);
    if (o->get_expected_max() == 0) {  // a switch (a flag without a value)
      out.push_back(name);
      continue;
    }
    const auto& values = o->results();
    if (values.empty()) continue;
    // One value a flag takes its last (CLI11's default), a list every value, each after its flag.
    const bool list = o->get_items_expected_max() > 1;
    const size_t first = list ? 0 : values.size() - 1;
    for (size_t i = first; i < values.size(); ++i) {
      if (!o->get_positional()) out.push_back(name);
      out.push_back(values[i]);
    }
  }
  return out;
}

}  // namespace gate::cli
