// gate.yaml's verdict settings, shared by every workload form: the quantiles tested, their
// thresholds, the calls' change, the policies that fail a build, the family's correction, speed
// normalization, preemption and pairing.
#include "runner/config_parse.hpp"

#include <set>

namespace gate::runner::config_parse {

// The verdict settings: quantiles, thresholds, policies (parse_config reads the baseline file after
// the benchmarks, as it always has, so that a file with two mistakes is refused for the same one).
void parse_verdict(const Ctx& c, const YAML::Node& root, Config& cfg) {
  if (root["quantiles"]) {
    if (!root["quantiles"].IsSequence())
      throw c.err(root["quantiles"], "quantiles", "must be a list", "e.g. quantiles: [p50, p99]");
    cfg.quantiles.clear();
    for (const auto& q : root["quantiles"]) {
      std::string s = str(c, q, "quantiles[]");
      check_quantile(c, q, s);
      cfg.quantiles.push_back(s);
    }
    if (cfg.quantiles.empty()) throw c.err(root["quantiles"], "quantiles", "is empty", "e.g. [p50, p99]");
  }
  if (root["threshold"]) cfg.threshold = threshold(c, root["threshold"], "threshold");
  if (root["thresholds"]) cfg.quantile_thresholds = quantile_map(c, root["thresholds"], "thresholds");
  if (root["calls_change"]) cfg.calls_change = threshold(c, root["calls_change"], "calls_change", false);
  if (root["fail_on_calls_change"]) cfg.fail_on_calls_change = boolean(c, root["fail_on_calls_change"], "fail_on_calls_change");
  if (root["fail_on_insufficient_data"])
    cfg.fail_on_insufficient = boolean(c, root["fail_on_insufficient_data"], "fail_on_insufficient_data");
  if (root["fail_on_suspect"]) cfg.fail_on_suspect = boolean(c, root["fail_on_suspect"], "fail_on_suspect");
  if (root["family"]) {
    cfg.family = str(c, root["family"], "family");
    // The words stats::parse_multiplicity takes (the runner does not depend on stats; the Config
    // tests check that every word here parses there).
    static const std::set<std::string> kFamilies = {"holm", "p50-first", "fdr", "bonferroni", "none"};
    if (!kFamilies.count(cfg.family))
      throw c.err(root["family"], "family", "is '" + cfg.family + "', not a known correction",
                  "write holm (the default), p50-first, fdr, bonferroni or none");
  }
  if (const YAML::Node n = root["speed_normalization"]) {
    const std::optional<bool> b =
        bool_or(c, n, "speed_normalization", "fitted",
                "write speed_normalization: fitted (each function's power of the speed factor fitted, gate ab), "
                "true or false");
    cfg.speed_normalization = b.value_or(true);
    cfg.fit_speed_elasticity = !b.has_value();
  }
  if (const YAML::Node n = root["exclude_preemption"])
    cfg.exclude_preemption = bool_or(c, n, "exclude_preemption", "auto",
                                     "write exclude_preemption: true (time calls minus other processes' preemption), "
                                     "false (wall time) or auto (gate's default; gate check follows its baseline)");
  if (root["pairing"]) {
    cfg.pairing = str(c, root["pairing"], "pairing");
    if (cfg.pairing != "auto" && cfg.pairing != "off")
      throw c.err(root["pairing"], "pairing", "is \"" + cfg.pairing + "\"", "use auto (pair gate ab's runs) or off");
  }
}

}  // namespace gate::runner::config_parse
