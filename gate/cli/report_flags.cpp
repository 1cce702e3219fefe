// The report flags: what goes where, the baseline they name, and writing the reports.
#include "cli/report_flags.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "baselines/git_ref.hpp"
#include "baselines/baseline_file.hpp"
#include "common/shell.hpp"
#include "report/report_util.hpp"
#include "verdict/config_options.hpp"
#include "verdict/threshold_diff.hpp"

namespace gate::cli {

void add_report_flags(CLI::App& app, ReportFlags& f) {
  app.add_option("--format", f.formats,
                 "Report format(s): text, markdown, json, junit, html; repeat or comma-separate for several "
                 "(default: text on stdout)")
      ->delimiter(',')
      ->check(CLI::IsMember({"text", "markdown", "md", "json", "junit", "html"}))
      ->type_name("FORMAT");
  app.add_option("--output", f.outputs,
                 "Write the report of the matching --format (in order) to FILE instead of stdout; '-' is stdout")
      ->type_name("FILE");
  app.add_option("--report-dir", f.report_dir,
                 "Write every format (or only the --format ones) into DIR: report.txt, report.md, report.json, "
                 "junit.xml, report.html; the text report still goes to stdout")
      ->type_name("DIR");
  app.add_option("--baseline-ref", f.baseline_ref,
                 "Read the baseline from this git commit (e.g. origin/main) instead of the working tree, and report "
                 "when the branch changes its baseline or thresholds")
      ->type_name("REF");
}

std::vector<report::ReportRequest> report_requests(const ReportFlags& f) {
  std::vector<report::Format> formats;
  for (const auto& name : f.formats) {
    const auto fmt = report::parse_format(name);
    if (!fmt) throw Error::make("--format " + name, "is not a report format", "use text, markdown, json, junit or html");
    formats.push_back(*fmt);
  }
  if (!f.outputs.empty() && f.outputs.size() != formats.size()) {
    throw Error::make("--output", "is given " + std::to_string(f.outputs.size()) + " times for " +
                                      std::to_string(formats.size()) + " --format",
                      "give one --output per --format, in the same order (e.g. --format junit --output junit.xml "
                      "--format html --output report.html), or use --report-dir DIR");
  }
  std::vector<report::ReportRequest> out;
  if (!f.outputs.empty()) {
    for (size_t i = 0; i < formats.size(); ++i) out.push_back({formats[i], f.outputs[i]});
  } else if (f.report_dir.empty()) {
    if (formats.size() > 1) {
      throw Error::make("--format", "names " + std::to_string(formats.size()) + " formats for one standard output",
                        "give an --output FILE for each, or --report-dir DIR to write them all");
    }
    if (formats.size() == 1) out.push_back({formats[0], "-"});
  }
  if (!f.report_dir.empty()) {
    const bool only_asked = f.outputs.empty() && !formats.empty();
    for (report::Format fmt : report::kAllFormats) {
      if (only_asked && std::find(formats.begin(), formats.end(), fmt) == formats.end()) continue;
      out.push_back({fmt, (std::filesystem::path(f.report_dir) / report::default_file_name(fmt)).string()});
    }
  }
  int on_stdout = 0;
  for (const auto& r : out) on_stdout += r.path.empty() || r.path == "-";
  if (on_stdout > 1) {
    throw Error::make("--output -", "is given for " + std::to_string(on_stdout) + " formats",
                      "only one report can go to stdout; write the others to files");
  }
  if (on_stdout == 0) out.insert(out.begin(), {report::Format::kText, "-"});
  return out;
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
