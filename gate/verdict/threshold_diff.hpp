// What a branch changed in its verdict settings compared with a reference commit's (the config
// file at --baseline-ref, or gate ab's --thresholds-ref): computed as data from the two sets of
// options (stats/threshold_change.hpp), then said in one notice (explain/threshold_diff_text.hpp). gate ab also judges with the reference commit's settings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/result.hpp"
#include "runner/config.hpp"
#include "stats/compare.hpp"
#include "stats/threshold_change.hpp"

namespace gate::verdict {

using stats::BandChange;
using stats::ThresholdDiff;

// Compares the options per (function, quantile) of `functions`, grouping functions whose band moved
// the same way (a new default reads as one change).
ThresholdDiff diff_thresholds(const stats::CompareOptions& before, const stats::CompareOptions& after,
                              const std::vector<FunctionInfo>& functions);

// The notice for a config that may differ from its version at `ref` ("" when the thresholds are the
// same). A config REF does not have, or cannot parse, or git that cannot be read, is a notice too:
// never an error, because it is said after measuring and a report with a notice beats none. Reads git through baselines/.
std::string config_change_notice(const std::string& ref, const runner::Config& cfg,
                                 const std::vector<FunctionInfo>& functions);

// gate ab --thresholds-ref (issue 56): the base commit's config governs the verdict, so a change
// cannot loosen its own gate. The head's config with the verdict settings of `base`: quantiles,
// thresholds (default, per quantile, and per function, matched by pattern: a head pattern the base
// lacks gets the base's defaults), calls and insufficient-data policies, family, fail_on_suspect.
// What is measured (functions, workload, runs) stays the head's.
runner::Config with_verdict_settings_of(const runner::Config& head, const runner::Config& base);

// The config `cfg` as committed at REF, parsed. Without a usable one (REF lacks the file, or it
// cannot be read or parsed) `cfg` is nullopt and `notice` says why: never an error, the head's
// settings then apply.
struct ConfigAtRef {
  std::optional<runner::Config> cfg;
  std::string repo_path;  // the config's path in the repository
  std::string notice;
};
ConfigAtRef config_at_ref(const std::string& ref, const runner::Config& cfg);

// gate ab's notice when the head's verdict settings differ from the base's (REF's), which it applied:
// check mode's sentence, ending with whose settings were applied; "" when they are the same.
std::string ab_threshold_notice(const std::string& ref, const std::string& repo_path, const runner::Config& base,
                                const runner::Config& head, const std::vector<FunctionInfo>& functions);

}  // namespace gate::verdict
