// The words of a threshold diff (stats/threshold_change.hpp) and of the notices verdict/threshold_diff
// returns: what a branch changed in its verdict settings against a reference commit's, whose
// settings were applied, and why they could not be compared.
#pragma once

#include <string>

#include "stats/threshold_change.hpp"

namespace gate::explain {

// "quantiles p50 -> p50, p99; threshold +10% / -10% -> +3% / -3% for main.f p50, main.g p50": the
// changes joined by "; " (empty when there are none).
std::string threshold_diff_text(const stats::ThresholdDiff& d);

// "this branch changes the thresholds in P (compared with REF): <threshold_diff_text>".
std::string thresholds_changed(const std::string& repo_path, const std::string& short_ref, const stats::ThresholdDiff& d);
// Its ending when gate check applied the branch's settings, and when gate ab applied the base's.
std::string applied_branch_settings(const std::string& sentence);
std::string applied_base_settings(const std::string& sentence, const std::string& short_ref);

// gate check's notices when the config at REF cannot be compared: git failed, REF lacks the file,
// or REF's version does not parse.
std::string thresholds_not_compared(const std::string& ref, const std::string& why);
std::string config_new_on_branch(const std::string& repo_path, const std::string& ref);
std::string config_at_ref_unreadable(const std::string& repo_path, const std::string& ref, const std::string& why);

// gate ab --thresholds-ref's notices when the base's settings cannot be used, so the change's apply.
std::string base_thresholds_unreadable(const std::string& short_ref, const std::string& why);
std::string config_new_in_change(const std::string& repo_path, const std::string& short_ref);
std::string base_config_unreadable(const std::string& repo_path, const std::string& short_ref, const std::string& why);

}  // namespace gate::explain
