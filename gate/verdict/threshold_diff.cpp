// The threshold diff between a branch's config and the reference commit's, and its notice.
#include "verdict/threshold_diff.hpp"

#include <algorithm>

#include "baselines/git_ref.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/format.hpp"
#include "report/report_util.hpp"
#include "verdict/options.hpp"

namespace gate::verdict {

namespace {


std::vector<std::string> names(const std::vector<stats::QuantileSpec>& qs) {
  std::vector<std::string> out;
  for (const auto& q : qs) out.push_back(q.name);
  return out;
}

bool same(const stats::Band& a, const stats::Band& b) { return report::band_text(a) == report::band_text(b); }

}  // namespace

bool ThresholdDiff::empty() const {
  return quantiles_before == quantiles_after && bands.empty() && calls_change_before == calls_change_after &&
         fail_on_calls_before == fail_on_calls_after && fail_on_insufficient_before == fail_on_insufficient_after;
}

ThresholdDiff diff_thresholds(const stats::CompareOptions& before, const stats::CompareOptions& after,
                              const std::vector<FunctionInfo>& functions) {
  ThresholdDiff d;
  d.quantiles_before = names(before.quantiles);
  d.quantiles_after = names(after.quantiles);
  std::vector<std::string> quantiles = d.quantiles_after;
  for (const auto& q : d.quantiles_before)
    if (std::find(quantiles.begin(), quantiles.end(), q) == quantiles.end()) quantiles.push_back(q);
  for (const auto& fn : functions)
    for (const auto& q : quantiles) {
      const stats::Band b = before.thresholds.lookup(fn.name, q), a = after.thresholds.lookup(fn.name, q);
      if (same(a, b)) continue;
      auto it = std::find_if(d.bands.begin(), d.bands.end(),
                             [&](const BandChange& c) { return same(c.before, b) && same(c.after, a); });
      if (it == d.bands.end()) it = d.bands.insert(d.bands.end(), BandChange{b, a, {}});
      it->where.push_back(fn.name + " " + q);
    }
  d.calls_change_before = before.calls_ratio_threshold - 1;
  d.calls_change_after = after.calls_ratio_threshold - 1;
  d.fail_on_calls_before = before.calls_policy == stats::CallsPolicy::kFailOnChange;
  d.fail_on_calls_after = after.calls_policy == stats::CallsPolicy::kFailOnChange;
  d.fail_on_insufficient_before = before.require_sufficient_data;
  d.fail_on_insufficient_after = after.require_sufficient_data;
  return d;
}

std::string describe(const ThresholdDiff& d) {
  std::vector<std::string> changes;
  if (d.quantiles_before != d.quantiles_after)
    changes.push_back("quantiles " + join(d.quantiles_before, ", ") + " -> " + join(d.quantiles_after, ", "));
  for (const auto& b : d.bands) {
    std::string item = "threshold " + report::band_text(b.before) + " -> " + report::band_text(b.after) + " for ";
    if (b.where.size() <= 2) item += join(b.where, ", ");
    else item += std::to_string(b.where.size()) + " function quantiles (" + b.where[0] + ", " + b.where[1] + ", ...)";
    changes.push_back(item);
  }
  if (d.calls_change_before != d.calls_change_after)
    changes.push_back("calls_change " + percent(d.calls_change_before) + " -> " +
                      percent(d.calls_change_after));
  auto flag = [](bool v) { return v ? "true" : "false"; };
  if (d.fail_on_calls_before != d.fail_on_calls_after)
    changes.push_back(std::string("fail_on_calls_change ") + flag(d.fail_on_calls_before) + " -> " +
                      flag(d.fail_on_calls_after));
  if (d.fail_on_insufficient_before != d.fail_on_insufficient_after)
    changes.push_back(std::string("fail_on_insufficient_data ") + flag(d.fail_on_insufficient_before) + " -> " +
                      flag(d.fail_on_insufficient_after));
  return join(changes, "; ");
}

std::string config_change_notice(const std::string& ref, const runner::Config& cfg,
                                 const std::vector<FunctionInfo>& functions) {
  baselines::FileAtRef f;
  try {
    f = baselines::read_at_ref(ref, cfg.path);
  } catch (const Error& e) {  // after measuring, a report with a notice beats no report
    return "the thresholds could not be compared with " + ref + ": " + e.summary();
  }
  if (!f.exists) {
    return "the config " + f.repo_path + " is new on this branch (not in " + ref +
           "): its thresholds cannot be checked against " + ref;
  }
  const auto local = read_file(cfg.path);
  if (local && *local == f.bytes) return "";
  ThresholdDiff d;
  try {
    const runner::Config old_cfg = runner::parse_config(f.bytes, cfg.path, ref + ":" + f.repo_path);
    d = diff_thresholds(compare_options(&old_cfg, functions), compare_options(&cfg, functions), functions);
  } catch (const Error& e) {
    return "this branch changes the config " + f.repo_path + " and the version in " + ref +
           " cannot be read to compare thresholds (" + e.summary() + ")";
  }
  if (d.empty()) return "";
  return "this branch changes the thresholds in " + f.repo_path + " (compared with " + ref + "): " + describe(d) +
         "; the gate applied the branch's settings";
}

}  // namespace gate::verdict
