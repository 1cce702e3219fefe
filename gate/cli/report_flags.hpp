// Shared by check/compare/ab/merge: the report flags (--format/--output/--report-dir/--baseline-ref),
// loading the baseline they name, and printing the reports (with the "reproduce" line that
// flags.hpp builds and the "accept" command) and the exit code the comparison implies.
// Parsing and printing only: the work is in verdict/.
#pragma once

#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "report/reports.hpp"
#include "results/result.hpp"
#include "runner/config.hpp"
#include "stats/compare.hpp"

namespace gate::cli {

// The report flags every comparing command (check, compare, ab) shares.
struct ReportFlags {
  std::vector<std::string> formats;  // --format, repeatable, comma lists allowed
  std::vector<std::string> outputs;  // --output, paired with --format in order ("-": stdout)
  std::string report_dir;            // --report-dir: every format (or the --format ones) in DIR
  std::string baseline_ref;          // --baseline-ref: the baseline (and reference thresholds) from a commit
  std::vector<std::string> notices;  // filled while the command runs: headline notes
};
void add_report_flags(CLI::App& app, ReportFlags& f);
// What goes where (report::requests_for). Text on stdout unless some format already goes there.
// Throws gate::Error (exit 2) when --output does not pair with --format, or several formats would
// share stdout.
std::vector<report::ReportRequest> report_requests(const ReportFlags& f);
// Everything about the report flags that can be checked before measuring: report_requests(), and
// with --baseline-ref that cfg sits in a git repository where REF names a commit. Throws gate::Error
// (exit 2).
void validate_report_flags(const ReportFlags& f, const runner::Config* cfg);

// The baseline for check/compare: from the working tree, or with --baseline-ref from that commit
// (adding a notice to f when the branch changed it).
ResultFile load_baseline(const std::string& path, const std::string& config_path, ReportFlags& f);

// What a command knows beyond the comparison, for the reports.
struct ReportContext {
  std::string command;                  // "check", "compare", "ab"
  const runner::Config* cfg = nullptr;  // its thresholds (JSON options; changes against --baseline-ref)
  const ResultFile* base = nullptr;     // histograms for the HTML plots
  const ResultFile* head = nullptr;
  std::vector<std::string> rerun;       // gate's arguments that reproduce the verdict: rerun_args (flags.hpp)
  std::vector<std::string> accept;      // a command (argv) that accepts the change; empty: none
  std::string accept_note;              // said after it
  std::string base_label = "base";
  std::string head_label = "head";
  const Annotations* notes = nullptr;  // code, profile, units, layouts (results/annotations.hpp)
};
// Writes the requested reports (text on stdout by default) and returns the comparison's exit code.
// With --baseline-ref and a config, notes first whether the branch changed its thresholds.
int print_report(const stats::Comparison& c, const Globals& g, ReportFlags& f, const ReportContext& ctx);

// A path as a user would type it here: relative to the current directory when inside it.
std::string display_path(const std::string& path);

}  // namespace gate::cli
