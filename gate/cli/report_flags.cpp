// The report flags (what goes where is report::requests_for's), the baseline they name, and writing
// the reports.
#include "cli/report_flags.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "baselines/git_ref.hpp"
#include "baselines/baseline_file.hpp"
#include "cli/flags.hpp"
#include "common/shell.hpp"
#include "report/report_util.hpp"
#include "verdict/config_options.hpp"
#include "verdict/threshold_diff.hpp"

namespace gate::cli {

namespace {

constexpr char kReportGoes[] = "where the reports go, not the verdict";

}  // namespace

void add_report_flags(CLI::App& app, ReportFlags& f) {
  option(app, "--format", Rerun::left_out(kReportGoes), f.formats,
         "Report format(s): text, markdown, json, junit, html; repeat or comma-separate for several "
         "(default: text on stdout)")
      ->delimiter(',')
      ->check(CLI::IsMember({"text", "markdown", "md", "json", "junit", "html"}))
      ->type_name("FORMAT");
  option(app, "--output", Rerun::left_out(kReportGoes), f.outputs,
         "Write the report of the matching --format (in order) to FILE instead of stdout; '-' is stdout")
      ->type_name("FILE");
  option(app, "--report-dir", Rerun::left_out(kReportGoes), f.report_dir,
         "Write every format (or only the --format ones) into DIR: report.txt, report.md, report.json, "
         "junit.xml, report.html; the text report still goes to stdout")
      ->type_name("DIR");
  option(app, "--baseline-ref", Rerun::kCarried, f.baseline_ref,
         "Read the baseline from this git commit (e.g. origin/main) instead of the working tree, and report "
         "when the branch changes its baseline or thresholds")
      ->type_name("REF");
}

std::vector<report::ReportRequest> report_requests(const ReportFlags& f) {
  return report::requests_for(f.formats, f.outputs, f.report_dir);
}

void validate_report_flags(const ReportFlags& f, const runner::Config* cfg) {
  report_requests(f);
  if (!f.baseline_ref.empty() && cfg) baselines::read_at_ref(f.baseline_ref, cfg->path);  // repository and ref exist
}

ResultFile load_baseline(const std::string& path, const std::string& config_path, ReportFlags& f) {
  if (f.baseline_ref.empty()) return baselines::load(path, config_path);
  return baselines::load_at_ref(f.baseline_ref, path, config_path, f.notices);
}

namespace {

// Colour on a terminal only, and never when NO_COLOR is set to anything (https://no-color.org).
bool want_colour() {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return isatty(fileno(stdout)) == 1;
}

}  // namespace

int print_report(const stats::Comparison& c, const Globals& g, ReportFlags& f, const ReportContext& ctx) {
  const auto requests = report_requests(f);  // before any work: a usage error is exit 2, not a half report
  const std::optional<stats::CompareOptions> options = verdict::report_options(ctx.cfg, ctx.head);
  if (ctx.cfg && ctx.head && !f.baseline_ref.empty()) {
    const std::string notice = verdict::config_change_notice(f.baseline_ref, *ctx.cfg, ctx.head->functions);
    if (!notice.empty()) f.notices.push_back(notice);
  }
  report::ReportInputs in;
  in.command = ctx.command;
  in.subject = ctx.cfg ? ctx.cfg->name : "";
  in.base = ctx.base;
  in.head = ctx.head;
  in.options = options ? &*options : nullptr;
  if (!ctx.rerun.empty()) in.next.rerun = "gate " + shell_join(ctx.rerun);
  in.next.accept = shell_join(ctx.accept);
  in.next.accept_note = ctx.accept_note;
  in.notices = f.notices;
  in.base_label = ctx.base_label;
  in.head_label = ctx.head_label;
  in.notes = ctx.notes;
  in.quiet = g.quiet;  // quiet: regressions and doubts only; the summary counts the rest
  in.color = want_colour();
  report::write_reports(c, in, requests);
  for (const auto& r : requests)
    if (!r.path.empty() && r.path != "-") g.log("wrote the " + std::string(report::to_string(r.format)) + " report to " + r.path);
  return static_cast<int>(c.exit_code);
}

std::string display_path(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (!p.is_absolute()) return path;
  std::error_code ec;
  const fs::path rel = p.lexically_relative(fs::current_path(ec));
  if (ec || rel.empty() || *rel.begin() == "..") return path;
  return rel.string();
}

}  // namespace gate::cli
