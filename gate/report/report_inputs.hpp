// What a report needs beyond the Comparison: the two measurements (histograms per run, for the
// HTML plots and the JSON context), the settings, the headline notices and the next-step commands.
#pragma once

#include <string>
#include <vector>

#include "results/annotations.hpp"
#include "results/result.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// What to do about a regression, as commands a developer can paste (already shell-quoted).
struct NextSteps {
  std::string rerun;        // reproduces the verdict: "gate check -c gate.yaml --baseline baselines/shop.json"
  std::string accept;       // makes head the new baseline: "gate record -c gate.yaml --baseline ... --force"
  std::string accept_note;  // said after the accept command: "then commit baselines/shop.json"
  bool empty() const { return rerun.empty() && accept.empty(); }
};

struct ReportInputs {
  std::string command;  // "check", "compare" or "ab": names the report ("gate check")
  std::string subject;  // what was measured, usually the config's name ("shop"); may be empty
  // The measurements compared (nullptr: not available; the HTML report then has no plots).
  const ResultFile* base = nullptr;
  const ResultFile* head = nullptr;
  // The settings the verdicts were reached with (nullptr: not stated in the JSON report).
  const stats::CompareOptions* options = nullptr;
  NextSteps next;
  // Headline notes every format shows first, e.g. "this branch changes the baseline ...".
  std::vector<std::string> notices;
  std::string base_label = "base";  // where the base came from: "baseline origin/main:baselines/shop.json"
  std::string head_label = "head";
  bool quiet = false;  // text and Markdown: leave unchanged functions out (still counted)
  bool color = false;  // text: ANSI colours (the caller decides: a terminal, and NO_COLOR unset)
  // Text: the quantile columns, by name, in this order (empty: every quantile compared), and the
  // indented lines under a function that say why it is inconclusive, lacks data or changed calls.
  std::vector<std::string> quantiles;
  bool reasons = true;
  // Code, profile, unit and layout facts beside the verdicts (nullptr: none).
  const Annotations* notes = nullptr;
};

}  // namespace gate::report
