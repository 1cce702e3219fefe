// The report formats on one deterministic comparison: golden files for text, Markdown, JSON and
// JUnit (GATE_UPDATE_GOLDEN=1 rewrites them), escaping, colour, the HTML structure and
// write_reports(). Pure: no root, no kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/error.hpp"
#include "explain/explain.hpp"
#include "report/html_report.hpp"
#include "report/json_number.hpp"
#include "report/json_report.hpp"
#include "report/junit_report.hpp"
#include "report/markdown_report.hpp"
#include "report/report_util.hpp"
#include "report/reports.hpp"
#include "report/text_report.hpp"
#include "verdict/exit_code.hpp"
#include "report_fixture.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;


size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea && eb) return "(texts differ only in the final newline)";
    if (ea || eb || la != lb) {
      return "line " + std::to_string(line) + ":\n  golden: " + (ea ? "<end of file>" : la) +
             "\n  actual: " + (eb ? "<end of file>" : lb);
    }
  }
}

bool update_golden() {
  const char* v = std::getenv("GATE_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

// JSON documents equal up to a relative 1e-9 in numbers: the last printed digit of a double may
// differ between compilers, the meaning may not.
void expect_json_near(const nlohmann::json& want, const nlohmann::json& got, const std::string& path) {
  if (want.is_number() && got.is_number()) {
    const double a = want.get<double>(), b = got.get<double>();
    EXPECT_LE(std::abs(a - b), 1e-9 * std::max({1.0, std::abs(a), std::abs(b)})) << path << ": " << a << " vs " << b;
    return;
  }
  ASSERT_EQ(want.type_name(), std::string(got.type_name())) << path;
  if (want.is_object()) {
    ASSERT_EQ(want.size(), got.size()) << path << " keys: " << want.dump() << "\nvs\n" << got.dump();
    for (auto it = want.begin(); it != want.end(); ++it) {
      ASSERT_TRUE(got.contains(it.key())) << path << "." << it.key();
      expect_json_near(it.value(), got.at(it.key()), path + "." + it.key());
    }
  } else if (want.is_array()) {
    ASSERT_EQ(want.size(), got.size()) << path;
    for (size_t i = 0; i < want.size(); ++i) expect_json_near(want[i], got[i], path + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(want, got) << path;
  }
}

void check_golden(const std::string& name, const std::string& actual, bool json = false) {
  const fs::path file = fs::path(GATE_REPORT_GOLDEN) / name;
  if (update_golden()) {
    std::ofstream(file, std::ios::binary) << actual;
    std::printf("updated golden file %s\n", file.c_str());
    return;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing: run this test with GATE_UPDATE_GOLDEN=1 to create it";
  const std::string want = slurp(file);
  if (json) {
    expect_json_near(nlohmann::json::parse(want), nlohmann::json::parse(actual), "$");
  } else if (want != actual) {
    ADD_FAILURE() << name << " differs from its golden file " << file << " at " << first_difference(want, actual)
                  << "\nIf the change is intended, re-run with GATE_UPDATE_GOLDEN=1 and review the diff.";
  }
}

// The sample exercises what the golden files are meant to pin down.
TEST(ReportSample, HasEveryVerdictAndOneSidedFunctions) {
  const auto& c = sample().comparison;
  EXPECT_EQ(c.counts.regression, 1);
  EXPECT_EQ(c.counts.improvement, 1);
  EXPECT_GE(c.counts.unchanged, 1);
  // SumBy's p50 is past +3% on its own test, not after Holm over 12: a suspect (its p99 inconclusive).
  EXPECT_EQ(c.counts.suspect, 1);
  EXPECT_EQ(c.counts.insufficient_data, 1);
  EXPECT_EQ(c.functions.front().name, kRegressed);
  EXPECT_EQ(c.only_in_base, std::vector<std::string>{"main.removed"});
  EXPECT_EQ(c.only_in_head, std::vector<std::string>{"main.added"});
  EXPECT_FALSE(explain::warnings(c).empty());
  EXPECT_EQ(c.exit_code, ExitCode::kRegression);
}

TEST(ReportGolden, Text) { check_golden("report.txt", report::render(report::Format::kText, sample().comparison, sample().inputs)); }
TEST(ReportGolden, Markdown) { check_golden("report.md", report::render_markdown(sample().comparison, sample().inputs)); }
TEST(ReportGolden, Json) { check_golden("report.json", report::render_json(sample().comparison, sample().inputs), true); }
TEST(ReportGolden, Junit) { check_golden("junit.xml", report::render_junit(sample().comparison, sample().inputs)); }

// Issue 34: a suspected regression is named at the top of every report, before the table, with
// the interval that decided and whether it fails the build.
TEST(ReportSuspect, NamedAtTheTopOfEveryFormat) {
  const auto& c = sample().comparison;
  const auto& in = sample().inputs;
  const std::string suspect = "example.com/shop.SumBy[go.shape.int64]";
  const std::string heading = "1 suspected regression";
  const std::string t = report::render(report::Format::kText, c, in);
  ASSERT_TRUE(contains(t, "SUSPECT " + heading)) << t;
  EXPECT_LT(t.find("SUSPECT " + heading), t.find("verdict  ")) << t;
  EXPECT_TRUE(contains(t, "passes the build (set fail_on_suspect: true")) << t;
  const std::string md = report::render_markdown(c, in);
  ASSERT_TRUE(contains(md, "> **Suspected regression.** " + heading)) << md;
  EXPECT_LT(md.find("**Suspected regression.**"), md.find("| verdict")) << md;
  EXPECT_TRUE(contains(md, "\xF0\x9F\x9F\xA0 **suspect**")) << md;
  const std::string x = report::render_junit(c, in);
  EXPECT_TRUE(contains(x, "name=\"gate.suspects\" value=\"" + heading)) << x;
  EXPECT_TRUE(contains(x, "SUSPECTED REGRESSION (passes")) << x;
  EXPECT_FALSE(contains(x, "type=\"suspect\"")) << "a suspect fails only with fail_on_suspect";
  const std::string h = report::render_html(c, in);
  ASSERT_TRUE(contains(h, "<div class=\"suspects\"><strong>Suspected regression.</strong> " + heading)) << h;
  EXPECT_LT(h.find("class=\"suspects\""), h.find("<h2>Functions</h2>"));
  const auto j = nlohmann::json::parse(report::render_json(c, in));
  ASSERT_EQ(j.at("suspects").size(), 1u);
  EXPECT_TRUE(contains(j.at("suspects")[0].get<std::string>(), suspect));
  EXPECT_EQ(j.at("counts").at("suspect"), 1);
  EXPECT_EQ(j.at("fail_on_suspect"), false);
  // The shown interval is the one that decided: the suspect's reaches below +3%, its own does not.
  for (const auto& f : j.at("functions"))
    if (f.at("name") == suspect) {
      const auto& q = f.at("quantiles")[0];
      EXPECT_EQ(q.at("verdict"), "suspect");
      EXPECT_LE(q.at("ci_low").get<double>(), 1.03);
      EXPECT_GT(q.at("ci_unadjusted_low").get<double>(), 1.03);
    }
  // With fail_on_suspect the suspect is a JUnit failure and the build fails.
  stats::Comparison failing = c;
  failing.suspects_fail = true;
  failing.exit_code = verdict::exit_code(failing, true);
  const std::string xf = report::render_junit(failing, in);
  EXPECT_TRUE(contains(xf, "type=\"suspect\"")) << xf;
  EXPECT_TRUE(contains(report::render(report::Format::kText, failing, in), "fails the build (fail_on_suspect: true)"));
}

TEST(ReportText, RegressionLinesSayWhatToDoNext) {
  const std::string t = report::render(report::Format::kText, sample().comparison, sample().inputs);
  EXPECT_TRUE(contains(t, "NOTE: this branch changes the baseline")) << t;
  EXPECT_EQ(t.rfind("NOTE: ", 0), 0u) << "the notice is the first line: " << t;
  EXPECT_TRUE(contains(t, "    reproduce: " + sample().inputs.next.rerun + "\n")) << t;
  EXPECT_TRUE(contains(t, "    accept:    " + sample().inputs.next.accept + "  # then commit")) << t;
  EXPECT_EQ(count_of(t, "    reproduce: "), static_cast<size_t>(sample().comparison.counts.regression));
}

std::string strip_ansi(const std::string& s) { return std::regex_replace(s, std::regex("\x1b\\[[0-9;]*m"), ""); }

TEST(ReportText, ColourOnlyWhenAskedAndAlignmentKept) {
  auto in = sample().inputs;
  const std::string plain = report::render(report::Format::kText, sample().comparison, in);
  EXPECT_FALSE(contains(plain, "\x1b[")) << plain;
  in.color = true;
  const std::string coloured = report::render(report::Format::kText, sample().comparison, in);
  EXPECT_TRUE(contains(coloured, "\x1b[1;31mregression\x1b[0m")) << coloured;
  EXPECT_TRUE(contains(coloured, "\x1b[32mimprovement\x1b[0m")) << coloured;
  EXPECT_EQ(strip_ansi(coloured), plain) << "colour must not move a column";
  // Files never get colour, whatever the inputs say.
  const fs::path dir = fs::temp_directory_path() / ("gate-report-colour-" + std::to_string(getpid()));
  report::write_reports(sample().comparison, in, {{report::Format::kText, (dir / "r.txt").string()}});
  EXPECT_EQ(slurp(dir / "r.txt"), plain);
  fs::remove_all(dir);
}

TEST(ReportText, ThresholdsLineGroupsAQuantilesBandAndListsExceptions) {
  stats::Comparison c;
  for (const char* name : {"main.a", "main.b", "main.c"}) {
    stats::FunctionComparison f;
    f.name = name;
    f.quantiles.resize(2);
    f.quantiles[0].name = "p50";
    f.quantiles[0].band = {0.10, 0.10};
    f.quantiles[1].name = "p99";
    f.quantiles[1].band = std::string(name) == "main.c" ? stats::Band{0.5, 0.5} : stats::Band{0.3, 0.3};
    c.functions.push_back(f);
  }
  EXPECT_EQ(report::thresholds_line(c), "thresholds: +10% / -10%, p99 +30% / -30% except main.c p99 +50% / -50%");
  EXPECT_EQ(report::thresholds_line(stats::Comparison{}), "");
}

TEST(ReportText, QuietLeavesUnchangedOutButCountsThem) {
  auto in = sample().inputs;
  in.quiet = true;
  const std::string t = report::render(report::Format::kText, sample().comparison, in);
  EXPECT_FALSE(contains(t, "\nunchanged ")) << t;
  EXPECT_TRUE(contains(t, report::summary_line(sample().comparison))) << t;
}

TEST(ReportEscaping, XmlHtmlMarkdownShell) {
  using namespace report;
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(xml_escape("tab\tnl\n"), "tab\tnl\n");
  EXPECT_EQ(xml_escape(std::string("bell\x07") + "nul" + std::string(1, '\0')), "bell\xEF\xBF\xBDnul\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("bad \xC3\x28 utf8"), "bad \xEF\xBF\xBD( utf8");
  EXPECT_EQ(xml_escape("\xEF\xBF\xBE"), "\xEF\xBF\xBD");                  // U+FFFE is not an XML character
  EXPECT_EQ(valid_utf8("\xE2\x82\xAC ok \xF0\x9F\x94\xB4"), "\xE2\x82\xAC ok \xF0\x9F\x94\xB4");
  EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");           // overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(md_escape("pkg.(*T).M <x> a|b _c_ [d]"), "pkg.(\\*T).M \\<x\\> a\\|b \\_c\\_ \\[d\\]");
  EXPECT_EQ(md_code("pkg.F[a|b]"), "`pkg.F[a\\|b]`");
  EXPECT_EQ(go_package("example.com/shop.(*Cart).Add"), "example.com/shop");
  EXPECT_EQ(go_package("example.com/x.Pair[example.com/y.T].Swap"), "example.com/x");
  EXPECT_EQ(go_package("main.f"), "main");
  EXPECT_EQ(percent(0.03), "3%");
  EXPECT_EQ(percent(0.125), "12.5%");
}

TEST(ReportMarkdown, HeadlineAttentionFirstRestFolded) {
  const std::string md = report::render_markdown(sample().comparison, sample().inputs);
  const auto& n = sample().comparison.counts;
  EXPECT_EQ(md.rfind("## ", 0), 0u) << md;
  const std::string first_line = md.substr(0, md.find('\n'));
  EXPECT_TRUE(contains(first_line, "1 regression, 1 suspected regression, 1 improvement, " +
                                       std::to_string(n.unchanged) + " unchanged"))
      << first_line;
  EXPECT_TRUE(contains(md, "> **Note:** this branch changes the baseline")) << md;
  const size_t details = md.find("<details>");
  ASSERT_NE(details, std::string::npos) << md;
  EXPECT_LT(md.find(report::md_code(kRegressed)), details);
  EXPECT_LT(md.find("inconclusive"), details);
  EXPECT_LT(md.find(report::md_code(kFewCalls)), details);
  EXPECT_GT(md.find(report::md_code(kImproved)), details) << "improvements are folded";
  EXPECT_GT(md.find("</details>"), details);
  // Thresholds and statistics: one line.
  const size_t sub = md.find("<sub>Thresholds: ");
  ASSERT_NE(sub, std::string::npos) << md;
  EXPECT_EQ(md.find('\n', sub), md.find("</sub>", sub) + 6);
  EXPECT_TRUE(contains(md.substr(sub), "Statistics: hierarchical bootstrap")) << md;
  EXPECT_TRUE(contains(md, "Reproduce: `" + sample().inputs.next.rerun + "`")) << md;
  EXPECT_TRUE(contains(md, "Accept the change: `" + sample().inputs.next.accept + "`")) << md;
  // The tricky name stays one table cell: its | would split it, its < would start HTML.
  EXPECT_TRUE(contains(md, report::md_code(kTricky))) << md;
}

TEST(ReportJson, SchemaAndEveryNumber) {
  const auto& c = sample().comparison;
  const auto j = nlohmann::json::parse(report::render_json(c, sample().inputs));
  EXPECT_EQ(j.at("schema"), "gate.report");
  EXPECT_EQ(j.at("schema_version"), report::kReportSchemaVersion);
  EXPECT_EQ(j.at("exit_code"), 1);
  EXPECT_EQ(j.at("outcome"), "regression");
  EXPECT_EQ(j.at("notices").size(), 1u);
  EXPECT_EQ(j.at("options").at("resamples"), sample().options.resamples);
  ASSERT_EQ(j.at("functions").size(), c.functions.size());
  for (size_t i = 0; i < c.functions.size(); ++i) {
    const auto& f = c.functions[i];
    const auto& jf = j.at("functions")[i];
    EXPECT_EQ(jf.at("name"), f.name);
    EXPECT_EQ(jf.at("verdict"), std::string(stats::to_string(f.verdict)));
    ASSERT_EQ(jf.at("quantiles").size(), f.quantiles.size());
    for (size_t k = 0; k < f.quantiles.size(); ++k) {
      const auto& q = f.quantiles[k];
      const auto& jq = jf.at("quantiles")[k];
      EXPECT_EQ(jq.at("threshold").at("regression").get<double>(), q.band.regression);
      if (q.tested()) {
        EXPECT_DOUBLE_EQ(jq.at("ratio").get<double>(), q.ratio);
        EXPECT_DOUBLE_EQ(jq.at("ci_low").get<double>(), q.ci_low);
        EXPECT_DOUBLE_EQ(jq.at("ci_high").get<double>(), q.ci_high);
        EXPECT_DOUBLE_EQ(jq.at("p_regression_adjusted").get<double>(), q.p_regression_adjusted);
        EXPECT_DOUBLE_EQ(jq.at("base_ns").get<double>(), q.base_ns);
      } else {
        EXPECT_TRUE(jq.at("ratio").is_null()) << f.name << " " << q.name;
      }
    }
  }
  EXPECT_EQ(j.at("only_in_base"), nlohmann::json::array({"main.removed"}));
  EXPECT_EQ(j.at("head").at("hostname"), "ci-runner-1");
}

TEST(ReportJson, InvalidUtf8InAWarningIsReplacedNotThrown) {
  const auto& c = sample().comparison;
  Annotations notes;
  notes.warnings.push_back("workload stderr: \xFF\xFE garbage");
  auto in = sample().inputs;
  in.notes = &notes;
  std::string text;
  ASSERT_NO_THROW(text = report::render_json(c, in));
  EXPECT_TRUE(contains(text, "\xEF\xBF\xBD")) << text;
  EXPECT_TRUE(nlohmann::json::accept(text));
}

TEST(ReportJunit, OneTestcasePerFunctionWithFailuresAndSkips) {
  const auto& c = sample().comparison;
  const std::string x = report::render_junit(c, sample().inputs);
  // A testcase per function (one-sided ones skipped) and per benchmark metric; a failure per
  // regression of either.
  const size_t tests = c.functions.size() + c.only_in_base.size() + c.only_in_head.size() + c.benchmarks.metrics.size();
  const size_t failures = static_cast<size_t>(c.counts.regression + c.benchmarks.counts.regression);
  ASSERT_EQ(failures, 2u);
  EXPECT_EQ(count_of(x, "<testcase "), tests);
  EXPECT_EQ(count_of(x, "<failure "), failures);
  EXPECT_EQ(count_of(x, "<skipped "), static_cast<size_t>(c.counts.insufficient_data) + 2);
  EXPECT_TRUE(contains(x, "tests=\"" + std::to_string(tests) + "\" failures=\"2\" errors=\"0\" skipped=\"3\"")) << x;
  // The failure message carries the numbers.
  const std::regex failure("<failure type=\"regression\" message=\"regression: p50 1\\.[0-9]+x \\[1\\.[0-9]+, 1\\.[0-9]+\\] above \\+3%");
  EXPECT_TRUE(std::regex_search(x, failure)) << x;
  EXPECT_TRUE(contains(x, "name=\"" + report::xml_escape(kTricky) + "\"")) << x;
  EXPECT_FALSE(contains(x, "<&>")) << "unescaped markup";
}

TEST(ReportHtml, SelfContainedWithOnePlotPerFunction) {
  const auto& c = sample().comparison;
  const std::string h = report::render_html(c, sample().inputs);
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* external : {"<script", "<link", " src=", "href=\"http", "href='http", "url(", "@import", "<iframe", "<img"})
    EXPECT_FALSE(contains(h, external)) << "external reference " << external;
  EXPECT_EQ(count_of(h, "<svg class=\"plot\""), c.functions.size());
  EXPECT_EQ(count_of(h, "<path class=\"cdf pooled base\""), c.functions.size());
  EXPECT_EQ(count_of(h, "<path class=\"cdf pooled head\""), c.functions.size());
  EXPECT_EQ(count_of(h, "<path class=\"cdf run base\""), c.functions.size() * sample().base.runs.size());
  EXPECT_TRUE(contains(h, "<code>" + report::xml_escape(kTricky) + "</code>")) << "escaped name";
  EXPECT_FALSE(contains(h, "\"tag:\\\"<&>")) << "unescaped name";
  EXPECT_TRUE(contains(h, "Reproduce: <code>" + report::xml_escape(sample().inputs.next.rerun) + "</code>"));
  EXPECT_TRUE(contains(h, "<p class=\"notice\"><strong>Note:</strong> this branch changes the baseline"));
  // The regression's head quantile marker sits to the right of the base one (log axis, 1.3x).
  const size_t at = h.find("id=\"plot-0\"");
  ASSERT_NE(at, std::string::npos);
  const std::regex marker("<g class=\"marker (base|head)\"><title>p50 [^<]*</title><line x1=\"([0-9.]+)\"");
  std::smatch m;
  std::string rest = h.substr(at);
  double xb = -1, xh = -1;
  for (int k = 0; k < 2 && std::regex_search(rest, m, marker); ++k) {
    (m[1] == "base" ? xb : xh) = std::stod(m[2]);
    rest = m.suffix();
  }
  EXPECT_GT(xh, xb + 10) << "head p50 marker right of base";
}

TEST(ReportHtml, WithoutRunsTheTableStaysAndNoPlotIsDrawn) {
  auto in = sample().inputs;
  in.base = in.head = nullptr;
  const std::string h = report::render_html(sample().comparison, in);
  EXPECT_EQ(count_of(h, "<svg"), 0u);
  EXPECT_TRUE(contains(h, "<table class=\"results\">"));
}

TEST(ReportFormats, NamesAndFiles) {
  using report::Format;
  for (Format f : report::kAllFormats) EXPECT_EQ(report::parse_format(report::to_string(f)), f);
  EXPECT_EQ(report::parse_format("md"), Format::kMarkdown);
  EXPECT_FALSE(report::parse_format("pdf").has_value());
  EXPECT_EQ(report::default_file_name(Format::kJunit), "junit.xml");
  EXPECT_EQ(report::default_file_name(Format::kHtml), "report.html");
}

TEST(WriteReports, FilesAtomicallyStdoutInOrderAndErrorsNamed) {
  const fs::path dir = fs::temp_directory_path() / ("gate-report-write-" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  report::write_reports(sample().comparison, sample().inputs,
                        {{report::Format::kJson, (dir / "sub/r.json").string()}, {report::Format::kMarkdown, "-"}}, out);
  std::rewind(out);
  std::string printed;
  for (int ch; (ch = std::fgetc(out)) != EOF;) printed += static_cast<char>(ch);
  std::fclose(out);
  EXPECT_EQ(printed, report::render_markdown(sample().comparison, sample().inputs));
  EXPECT_EQ(slurp(dir / "sub/r.json"), report::render_json(sample().comparison, sample().inputs));

  // A file that cannot be written: the others are still written, then an exit-2 error names it.
  std::ofstream(dir / "blocker") << "a file, not a directory";
  try {
    report::write_reports(sample().comparison, sample().inputs,
                          {{report::Format::kHtml, (dir / "blocker/r.html").string()},
                           {report::Format::kJunit, (dir / "junit.xml").string()}},
                          stdout);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    EXPECT_TRUE(contains(e.what(), (dir / "blocker/r.html").string())) << e.what();
  }
  EXPECT_TRUE(fs::exists(dir / "junit.xml"));
  fs::remove_all(dir);
}

// "What to do next": one sentence for Markdown and HTML, each with its own code and escaping;
// only the parts that are set.
TEST(Report, NextStepTextSaysOnlyWhatIsSet) {
  const auto code = [](const std::string& s) { return "`" + s + "`"; };
  const auto plain = [](const std::string& s) { return s; };
  report::NextSteps n{"gate check -c g.yaml", "gate record -c g.yaml --force", "then commit b.json"};
  EXPECT_EQ(report::next_step_text(n, code, plain),
            " Reproduce: `gate check -c g.yaml`. Accept the change: `gate record -c g.yaml --force` (then commit "
            "b.json).");
  n.accept.clear();
  EXPECT_EQ(report::next_step_text(n, code, plain), " Reproduce: `gate check -c g.yaml`. Accept the change: then "
                                                   "commit b.json.");
  n.rerun.clear();
  n.accept_note.clear();
  EXPECT_EQ(report::next_step_text(n, code, plain), "");
}

// One json_number for the report and its benchmark section: a NaN or an infinity is null (not a
// JSON number), a finite value the number itself.
TEST(ReportJsonNumber, NonFiniteIsNull) {
  EXPECT_EQ(report::json_number(1.25).dump(), "1.25");
  EXPECT_EQ(report::json_number(0).dump(), "0.0");
  EXPECT_TRUE(report::json_number(std::nan("")).is_null());
  EXPECT_TRUE(report::json_number(INFINITY).is_null());
  EXPECT_TRUE(report::json_number(-INFINITY).is_null());
}

}  // namespace
}  // namespace gate::testing
