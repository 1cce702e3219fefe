// Format names, what the report flags ask for, rendering dispatch and writing the requested reports.
#include "report/reports.hpp"

#include <algorithm>
#include <filesystem>

#include "common/error.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/junit_report.hpp"
#include "report/markdown_report.hpp"
#include "report/text_report.hpp"
#include "report/true_time_section.hpp"
#include "results/result.hpp"

namespace gate::report {

std::string_view to_string(Format f) {
  switch (f) {
    case Format::kText: return "text";
    case Format::kMarkdown: return "markdown";
    case Format::kJson: return "json";
    case Format::kJunit: return "junit";
    case Format::kHtml: return "html";
  }
  return "?";
}

std::optional<Format> parse_format(std::string_view name) {
  for (Format f : kAllFormats)
    if (name == to_string(f)) return f;
  if (name == "md") return Format::kMarkdown;
  return std::nullopt;
}

std::string default_file_name(Format f) {
  switch (f) {
    case Format::kText: return "report.txt";
    case Format::kMarkdown: return "report.md";
    case Format::kJson: return "report.json";
    case Format::kJunit: return "junit.xml";
    case Format::kHtml: return "report.html";
  }
  return "report";
}

std::vector<ReportRequest> requests_for(const std::vector<std::string>& names,
                                        const std::vector<std::string>& outputs, const std::string& report_dir) {
  std::vector<Format> formats;
  for (const auto& name : names) {
    const auto fmt = parse_format(name);
    if (!fmt) throw Error::make("--format " + name, "is not a report format", "use text, markdown, json, junit or html");
    formats.push_back(*fmt);
  }
  if (!outputs.empty() && outputs.size() != formats.size()) {
    throw Error::make("--output", "is given " + std::to_string(outputs.size()) + " times for " +
                                      std::to_string(formats.size()) + " --format",
                      "give one --output per --format, in the same order (e.g. --format junit --output junit.xml "
                      "--format html --output report.html), or use --report-dir DIR");
  }
  std::vector<ReportRequest> out;
  if (!outputs.empty()) {
    for (size_t i = 0; i < formats.size(); ++i) out.push_back({formats[i], outputs[i]});
  } else if (report_dir.empty()) {
    if (formats.size() > 1) {
      throw Error::make("--format", "names " + std::to_string(formats.size()) + " formats for one standard output",
                        "give an --output FILE for each, or --report-dir DIR to write them all");
    }
    if (formats.size() == 1) out.push_back({formats[0], "-"});
  }
  if (!report_dir.empty()) {
    const bool only_asked = outputs.empty() && !formats.empty();
    for (Format fmt : kAllFormats) {
      if (only_asked && std::find(formats.begin(), formats.end(), fmt) == formats.end()) continue;
      out.push_back({fmt, (std::filesystem::path(report_dir) / default_file_name(fmt)).string()});
    }
  }
  int on_stdout = 0;
  for (const auto& r : out) on_stdout += r.path.empty() || r.path == "-";
  if (on_stdout > 1) {
    throw Error::make("--output -", "is given for " + std::to_string(on_stdout) + " formats",
                      "only one report can go to stdout; write the others to files");
  }
  if (on_stdout == 0) out.insert(out.begin(), {Format::kText, "-"});
  return out;
}

std::string render(Format f, const stats::Comparison& c, const ReportInputs& in) {
  switch (f) {
    case Format::kText: return render_text(c, in);
    case Format::kMarkdown: return render_markdown(c, in);
    case Format::kJson: return render_json(c, in);
    case Format::kJunit: return render_junit(c, in);
    case Format::kHtml: return render_html(c, in);
  }
  return "";
}

void write_reports(const stats::Comparison& c, const ReportInputs& in, const std::vector<ReportRequest>& requests,
                   std::FILE* out) {
  std::string failed;
  for (const auto& r : requests) {
    const bool to_stdout = r.path.empty() || r.path == "-";
    // Colour is for a terminal: never in a file, whatever the caller asked for.
    ReportInputs plain = in;
    if (!to_stdout || r.format != Format::kText) plain.color = false;
    for (auto& n : true_time_notices(c, in)) plain.notices.push_back(std::move(n));  // every format says it
    const std::string text = render(r.format, c, plain);
    if (to_stdout) {
      std::fputs(text.c_str(), out);
      std::fflush(out);
      continue;
    }
    try {
      const auto parent = std::filesystem::path(r.path).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent);
      write_file_atomically(r.path, text);
    } catch (const std::exception& e) {
      failed += std::string(failed.empty() ? "" : "\n") + "  " + std::string(to_string(r.format)) + " report " + r.path +
                ": " + e.what();
    }
  }
  if (!failed.empty()) {
    throw Error::make("reports", "could not be written:\n" + failed,
                      "check that the directory exists and is writable, or choose another --output / --report-dir");
  }
}

}  // namespace gate::report
