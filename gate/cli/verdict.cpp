// Config -> statistics options; report printing; baseline loading with errors that say the fix.
#include "cli/verdict.hpp"

#include <cstdio>
#include <filesystem>

#include "analysis/functions.hpp"
#include "report/text_report.hpp"

namespace gate::cli {

stats::CompareOptions compare_options(const runner::Config* cfg, const std::vector<FunctionInfo>& functions) {
  stats::CompareOptions o;
  if (!cfg) return o;
  o.quantiles.clear();
  for (const auto& q : cfg->quantiles) o.quantiles.push_back(stats::QuantileSpec::parse(q));
  if (cfg->threshold) o.thresholds.defaults = {*cfg->threshold, *cfg->threshold};
  for (const auto& [q, t] : cfg->quantile_thresholds) o.thresholds.per_quantile[q] = {t, t};
  for (const auto& spec : cfg->functions) {
    if (!spec.threshold && spec.quantile_thresholds.empty()) continue;
    const auto pat = analysis::NamePattern::parse(spec.pattern);
    for (const auto& f : functions) {
      if (!pat.matches(f.name)) continue;
      if (spec.threshold && !o.thresholds.per_function.count(f.name))
        o.thresholds.per_function[f.name] = {*spec.threshold, *spec.threshold};
      for (const auto& [q, t] : spec.quantile_thresholds) {
        auto& m = o.thresholds.per_function_quantile[f.name];
        if (!m.count(q)) m[q] = {t, t};
      }
    }
  }
  o.calls_ratio_threshold = 1.0 + cfg->calls_change;
  o.calls_policy = cfg->fail_on_calls_change ? stats::CallsPolicy::kFailOnChange : stats::CallsPolicy::kReport;
  o.require_sufficient_data = cfg->fail_on_insufficient;
  o.validate();
  return o;
}

int print_report(const stats::Comparison& c, const Globals& g) {
  report::TextOptions t;
  t.show_unchanged = !g.quiet;  // quiet: regressions and doubts only; the summary counts the rest
  std::fputs(report::render_text(c, t).c_str(), stdout);
  std::fflush(stdout);
  return static_cast<int>(c.exit_code);
}

ResultFile load_baseline(const std::string& path, const std::string& config_path) {
  if (!std::filesystem::exists(path)) {
    throw Error::make("baseline " + path, "does not exist",
                      "record one first: gate record -c " + (config_path.empty() ? "gate.yaml" : config_path) +
                          " --baseline " + path);
  }
  ResultFile r = load_result_file(path);
  if (r.partial) {
    throw Error::make("baseline " + path, "is a partial result (" + r.partial_reason + ")",
                      "a failed or interrupted run is never a baseline: record it again");
  }
  if (r.runs.empty()) {
    throw Error::make("baseline " + path, "holds no runs", "record it again with gate record");
  }
  return r;
}

std::string default_baseline(const runner::Config& cfg) {
  if (!cfg.baseline.empty()) return cfg.baseline;
  return (std::filesystem::path("baselines") / (cfg.name + ".json")).string();
}

}  // namespace gate::cli
