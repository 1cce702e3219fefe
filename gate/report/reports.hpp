// Every report format of a comparison, and the one entry point the CLI calls: render each requested
// format and write it to its file (atomically) or to stdout.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_inputs.hpp"
#include "stats/compare.hpp"

namespace gate::report {

enum class Format { kText, kMarkdown, kJson, kJunit, kHtml };
inline constexpr Format kAllFormats[] = {Format::kText, Format::kMarkdown, Format::kJson, Format::kJunit,
                                         Format::kHtml};

std::string_view to_string(Format f);                       // "text", "markdown", "json", "junit", "html"
std::optional<Format> parse_format(std::string_view name);  // those names, and "md" for markdown
// The file name a format gets in a report directory: report.txt, report.md, report.json,
// junit.xml, report.html.
std::string default_file_name(Format f);

// The whole report in one format.
std::string render(Format f, const stats::Comparison& c, const ReportInputs& in);

struct ReportRequest {
  Format format = Format::kText;
  std::string path;  // "" or "-": standard output
};

// What goes where, from the report flags: formats by name (parse_format's), outputs paired with
// them in order ("-": standard output), and a report directory taking every format (or only the
// named ones) under its default_file_name. Text goes to standard output unless some format already
// does. Throws gate::Error (exit 2) for a name that is no format, outputs that do not pair with the
// formats, or several formats on standard output.
std::vector<ReportRequest> requests_for(const std::vector<std::string>& formats,
                                        const std::vector<std::string>& outputs, const std::string& report_dir);

// Renders and writes every request: files atomically, with their parent directories created;
// standard output in request order. A file that cannot be written does not stop the others; then
// throws gate::Error (exit 2) naming every such file.
void write_reports(const stats::Comparison& c, const ReportInputs& in, const std::vector<ReportRequest>& requests,
                   std::FILE* out = stdout);

}  // namespace gate::report
