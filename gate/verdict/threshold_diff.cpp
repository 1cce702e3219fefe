// The threshold diff between a branch's config and the reference commit's, its notice, and gate ab's
// settings taken from the base commit's config.
#include "verdict/threshold_diff.hpp"

#include <algorithm>

#include "baselines/git_ref.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/format.hpp"
#include "explain/threshold_diff_text.hpp"
#include "explain/verdict_text.hpp"
#include "verdict/config_options.hpp"

namespace gate::verdict {

namespace {


std::vector<std::string> names(const std::vector<stats::QuantileSpec>& qs) {
  std::vector<std::string> out;
  for (const auto& q : qs) out.push_back(q.name);
  return out;
}

bool same(const stats::Band& a, const stats::Band& b) { return explain::band_text(a) == explain::band_text(b); }

// A commit named by its full hash reads better cut to 12 characters, as git's short form.
std::string short_ref(const std::string& ref) {
  const bool hash = ref.size() == 40 && ref.find_first_not_of("0123456789abcdef") == std::string::npos;
  return hash ? ref.substr(0, 12) : ref;
}

// The sentence of what changed, without its ending; "" when the settings are the same.
std::string change_sentence(const std::string& ref, const std::string& repo_path, const runner::Config& before,
                            const runner::Config& after, const std::vector<FunctionInfo>& functions) {
  const ThresholdDiff d =
      diff_thresholds(compare_options(&before, functions), compare_options(&after, functions), functions);
  if (d.empty()) return "";
  return explain::thresholds_changed(repo_path, short_ref(ref), d);
}

}  // namespace

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

std::string config_change_notice(const std::string& ref, const runner::Config& cfg,
                                 const std::vector<FunctionInfo>& functions) {
  baselines::FileAtRef f;
  try {
    f = baselines::read_at_ref(ref, cfg.path);
  } catch (const Error& e) {  // after measuring, a report with a notice beats no report
    return explain::thresholds_not_compared(ref, e.summary());
  }
  if (!f.exists) {
    return explain::config_new_on_branch(f.repo_path, ref);
  }
  const auto local = read_file(cfg.path);
  if (local && *local == f.bytes) return "";
  std::string sentence;
  try {
    const runner::Config old_cfg = runner::parse_config(f.bytes, cfg.path, ref + ":" + f.repo_path);
    sentence = change_sentence(ref, f.repo_path, old_cfg, cfg, functions);
  } catch (const Error& e) {
    return explain::config_at_ref_unreadable(f.repo_path, ref, e.summary());
  }
  return sentence.empty() ? "" : explain::applied_branch_settings(sentence);
}

runner::Config with_verdict_settings_of(const runner::Config& head, const runner::Config& base) {
  runner::Config out = head;
  out.quantiles = base.quantiles;
  out.threshold = base.threshold;
  out.quantile_thresholds = base.quantile_thresholds;
  out.calls_change = base.calls_change;
  out.fail_on_calls_change = base.fail_on_calls_change;
  out.fail_on_insufficient = base.fail_on_insufficient;
  out.family = base.family;
  out.fail_on_suspect = base.fail_on_suspect;
  for (auto& spec : out.functions) {
    spec.threshold.reset();
    spec.quantile_thresholds.clear();
    for (const auto& b : base.functions)
      if (b.pattern == spec.pattern) {
        spec.threshold = b.threshold;
        spec.quantile_thresholds = b.quantile_thresholds;
        break;
      }
  }
  return out;
}

ConfigAtRef config_at_ref(const std::string& ref, const runner::Config& cfg) {
  ConfigAtRef out;
  baselines::FileAtRef f;
  try {
    f = baselines::read_at_ref(ref, cfg.path);
  } catch (const Error& e) {
    out.notice = explain::base_thresholds_unreadable(short_ref(ref), e.summary());
    return out;
  }
  out.repo_path = f.repo_path;
  if (!f.exists) {
    out.notice = explain::config_new_in_change(f.repo_path, short_ref(ref));
    return out;
  }
  try {
    out.cfg = runner::parse_config(f.bytes, cfg.path, short_ref(ref) + ":" + f.repo_path);
  } catch (const Error& e) {
    out.notice = explain::base_config_unreadable(f.repo_path, short_ref(ref), e.summary());
  }
  return out;
}

std::string ab_threshold_notice(const std::string& ref, const std::string& repo_path, const runner::Config& base,
                                const runner::Config& head, const std::vector<FunctionInfo>& functions) {
  const std::string sentence = change_sentence(ref, repo_path, base, head, functions);
  return sentence.empty() ? "" : explain::applied_base_settings(sentence, short_ref(ref));
}

}  // namespace gate::verdict
