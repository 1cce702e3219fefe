// The words of a threshold diff and its notices (explain/threshold_diff_text.hpp).
#include "explain/threshold_diff_text.hpp"

#include <vector>

#include "common/format.hpp"
#include "explain/verdict_text.hpp"

namespace gate::explain {

std::string threshold_diff_text(const stats::ThresholdDiff& d) {
  std::vector<std::string> changes;
  if (d.quantiles_before != d.quantiles_after)
    changes.push_back("quantiles " + join(d.quantiles_before, ", ") + " -> " + join(d.quantiles_after, ", "));
  for (const auto& b : d.bands) {
    std::string item = "threshold " + band_text(b.before) + " -> " + band_text(b.after) + " for ";
    if (b.where.size() <= 2) item += join(b.where, ", ");
    else item += std::to_string(b.where.size()) + " function quantiles (" + b.where[0] + ", " + b.where[1] + ", ...)";
    changes.push_back(item);
  }
  if (d.calls_change_before != d.calls_change_after)
    changes.push_back("calls_change " + percent(d.calls_change_before) + " -> " + percent(d.calls_change_after));
  auto flag = [](bool v) { return v ? "true" : "false"; };
  if (d.fail_on_calls_before != d.fail_on_calls_after)
    changes.push_back(std::string("fail_on_calls_change ") + flag(d.fail_on_calls_before) + " -> " +
                      flag(d.fail_on_calls_after));
  if (d.fail_on_insufficient_before != d.fail_on_insufficient_after)
    changes.push_back(std::string("fail_on_insufficient_data ") + flag(d.fail_on_insufficient_before) + " -> " +
                      flag(d.fail_on_insufficient_after));
  return join(changes, "; ");
}

std::string thresholds_changed(const std::string& repo_path, const std::string& short_ref, const stats::ThresholdDiff& d) {
  return "this branch changes the thresholds in " + repo_path + " (compared with " + short_ref + "): " +
         threshold_diff_text(d);
}

std::string applied_branch_settings(const std::string& sentence) {
  return sentence + "; the gate applied the branch's settings";
}

std::string applied_base_settings(const std::string& sentence, const std::string& short_ref) {
  return sentence + "; gate ab applied the base's settings (" + short_ref + ")";
}

std::string thresholds_not_compared(const std::string& ref, const std::string& why) {
  return "the thresholds could not be compared with " + ref + ": " + why;
}

std::string config_new_on_branch(const std::string& repo_path, const std::string& ref) {
  return "the config " + repo_path + " is new on this branch (not in " + ref + "): its thresholds cannot be checked against " +
         ref;
}

std::string config_at_ref_unreadable(const std::string& repo_path, const std::string& ref, const std::string& why) {
  return "this branch changes the config " + repo_path + " and the version in " + ref +
         " cannot be read to compare thresholds (" + why + ")";
}

std::string base_thresholds_unreadable(const std::string& short_ref, const std::string& why) {
  return "the base's thresholds could not be read from " + short_ref + " (" + why +
         "): this change's apply; fetch that commit (a shallow clone lacks it: fetch-depth 0, GIT_DEPTH 0)";
}

std::string config_new_in_change(const std::string& repo_path, const std::string& short_ref) {
  return "the config " + repo_path + " is new in this change (not in " + short_ref + "): its own thresholds apply";
}

std::string base_config_unreadable(const std::string& repo_path, const std::string& short_ref, const std::string& why) {
  return "the base's config " + repo_path + " at " + short_ref + " cannot be read (" + why +
         "): this change's thresholds apply";
}

}  // namespace gate::explain
