// Config -> stats::CompareOptions.
#include "verdict/config_options.hpp"

#include <cstdio>

#include "common/name_pattern.hpp"
#include "stats/instrument.hpp"

namespace gate::verdict {

stats::CompareOptions compare_options(const runner::Config* cfg, const std::vector<FunctionInfo>& functions) {
  stats::CompareOptions o;
  o.fail_on_suspect = runner::kFailOnSuspectByDefault;
  if (!cfg) return o;
  o.quantiles.clear();
  for (const auto& q : cfg->quantiles) o.quantiles.push_back(stats::QuantileSpec::parse(q));
  if (cfg->threshold) o.thresholds.defaults = {*cfg->threshold, *cfg->threshold};
  for (const auto& [q, t] : cfg->quantile_thresholds) o.thresholds.per_quantile[q] = {t, t};
  for (const auto& spec : cfg->functions) {
    if (!spec.threshold && spec.quantile_thresholds.empty()) continue;
    const auto pat = NamePattern::parse(spec.pattern);
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
  o.fail_on_suspect = cfg->fail_on_suspect.value_or(runner::kFailOnSuspectByDefault);
  stats::parse_multiplicity(cfg->family, &o.multiplicity);  // validated when the config was read
  o.normalize_speed = cfg->speed_normalization;
  o.fit_speed_elasticity = cfg->fit_speed_elasticity;
  o.pairing = cfg->pairing == "off" ? stats::Pairing::kOff : stats::Pairing::kAuto;
  o.measure_default = static_cast<uint8_t>(stats::parse_measure_setting(cfg->measure));
  for (const auto& f : functions) {
    const std::string m = cfg->measure_of(f.name);
    if (m != cfg->measure) o.measure[f.name] = static_cast<uint8_t>(stats::parse_measure_setting(m));
  }
  o.validate();
  return o;
}

std::string looks_text(int first, int last) { return std::to_string(first) + ".." + std::to_string(last); }

stats::CompareOptions with_looks(stats::CompareOptions o, const ResultFile& head) {
  const auto it = head.extra.find("looks");
  if (it == head.extra.end()) return o;
  int first = 0, last = 0;
  char tail = 0;
  if (std::sscanf(it->second.c_str(), "%d..%d%c", &first, &last, &tail) == 2 && first > 0 && last >= first &&
      last <= 100000) {
    o.first_look = first;
    o.last_look = last;
  }
  return o;
}

std::optional<stats::CompareOptions> report_options(const runner::Config* cfg, const ResultFile* head) {
  if (!head) return std::nullopt;
  return with_looks(compare_options(cfg, head->functions), *head);
}

}  // namespace gate::verdict
