// The reports as their consumers read them: the JUnit XML validated with xmllint against the
// schema in tests/report/junit.xsd, and the HTML rendered in headless Chromium, where a small script
// appended to a copy of the file checks that every plot is laid out and its distributions drawn.
// Neither tool is optional: CI installs both (ci/setup.sh); a missing one fails with the fix.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "results/annotations.hpp"
#include "report/html_report.hpp"
#include "report/junit_report.hpp"
#include "report/reports.hpp"
#include "report_fixture.hpp"
#include "stats/compare.hpp"

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

struct Ran {
  int status = -1;
  std::string out;  // stdout and stderr
};

// Runs a shell command line (arguments are our own temporary paths: no quoting needed).
Ran run(const std::string& cmd) {
  Ran r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}

std::string find_program(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    const Ran r = run(std::string("command -v ") + n);
    if (r.status == 0 && !r.out.empty()) return r.out.substr(0, r.out.find('\n'));
  }
  return "";
}

// Directories for this test process, removed when it exits.
fs::path scratch(const std::string& name) {
  static const struct Root {
    fs::path dir = fs::temp_directory_path() / ("gate-report-render-" + std::to_string(getpid()));
    ~Root() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } root;
  const fs::path d = root.dir / name;
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

const std::string kSchema = std::string(GATE_REPORT_TESTS) + "/junit.xsd";

std::string xmllint() {
  const std::string x = find_program({"xmllint"});
  if (x.empty()) ADD_FAILURE() << "xmllint is not installed: apt-get install libxml2-utils (ci/setup.sh does)";
  return x;
}

TEST(JunitSchema, SampleReportIsValid) {
  const std::string x = xmllint();
  if (x.empty()) return;
  const fs::path f = scratch("junit") / "junit.xml";
  write(f, report::render_junit(sample().comparison, sample().inputs));
  const Ran r = run(x + " --noout --schema " + kSchema + " " + f.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("validates"), std::string::npos) << r.out;
}

TEST(JunitSchema, EdgeCasesAreValid) {
  const std::string x = xmllint();
  if (x.empty()) return;
  const fs::path dir = scratch("junit-edge");
  // Nothing compared; control characters and invalid UTF-8 in warnings and notices; no context.
  stats::Comparison empty;
  Annotations notes;
  notes.warnings = {std::string("stderr: \x01\x02 \xFF\xFE ]]> <tag> & \"q\""), "second\r\nline"};
  empty.only_in_head = {"main.<new>&\"q\""};
  report::ReportInputs in;
  in.notes = &notes;
  in.notices = {"note with \x1b[31m escape"};
  write(dir / "empty.xml", report::render_junit(empty, in));
  const Ran r1 = run(x + " --noout --schema " + kSchema + " " + (dir / "empty.xml").string());
  EXPECT_EQ(r1.status, 0) << r1.out;
  // The sample with a command of every kind.
  for (const char* cmd : {"compare", "ab", ""}) {
    auto in2 = sample().inputs;
    in2.command = cmd;
    const fs::path f = dir / (std::string("cmd-") + cmd + ".xml");
    write(f, report::render_junit(sample().comparison, in2));
    const Ran r = run(x + " --noout --schema " + kSchema + " " + f.string());
    EXPECT_EQ(r.status, 0) << cmd << ": " << r.out;
  }
}

TEST(JunitSchema, TheSchemaRejectsWhatJenkinsAndGitlabWouldNot) {
  const std::string x = xmllint();
  if (x.empty()) return;
  const fs::path dir = scratch("junit-bad");
  // A testcase without a name, and a non-numeric count: the schema must be strict enough to catch them.
  write(dir / "noname.xml",
        "<?xml version=\"1.0\"?><testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\">"
        "<testcase classname=\"c\"/></testsuite></testsuites>\n");
  write(dir / "count.xml",
        "<?xml version=\"1.0\"?><testsuites><testsuite name=\"s\" tests=\"one\" failures=\"0\" errors=\"0\">"
        "<testcase name=\"t\" classname=\"c\"/></testsuite></testsuites>\n");
  for (const char* f : {"noname.xml", "count.xml"}) {
    const Ran r = run(x + " --noout --schema " + kSchema + " " + (dir / f).string());
    EXPECT_NE(r.status, 0) << f << " should not validate: " << r.out;
  }
}

// Appended to a copy of the report: measures every plot as laid out and writes one line of counts
// into the DOM, which --dump-dom prints. A path counts as drawn when it has a visible stroke, a
// length and a box inside its plot's frame.
const char* kChecker = R"JS(
<script>
(function () {
  var plots = document.querySelectorAll('svg.plot');
  var drawn = 0, paths = 0, markers = 0, bad = [];
  plots.forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var frame = svg.querySelector('rect.frame').getBBox();
    var pooled = svg.querySelectorAll('path.cdf.pooled');
    var good = 0;
    pooled.forEach(function (p) {
      var b = p.getBBox(), cs = getComputedStyle(p);
      var inside = b.x >= frame.x - 1 && b.x + b.width <= frame.x + frame.width + 1 &&
                   b.y >= frame.y - 1 && b.y + b.height <= frame.y + frame.height + 1;
      if (p.getTotalLength() > 50 && b.width > 20 && b.height > 20 && inside && cs.stroke !== 'none' &&
          cs.visibility !== 'hidden' && cs.display !== 'none' && parseFloat(cs.strokeWidth) > 0) good++;
    });
    paths += svg.querySelectorAll('path.cdf').length;
    svg.querySelectorAll('g.marker circle').forEach(function (c) {
      var b = c.getBBox();
      if (b.width > 0 && b.height > 0) markers++;
    });
    if (box.width > 300 && box.height > 100 && pooled.length == 2 && good == 2) drawn++; else bad.push(svg.id);
  });
  var out = document.createElement('pre');
  out.id = 'gate-check';
  out.textContent = 'plots=' + plots.length + ' drawn=' + drawn + ' paths=' + paths + ' markers=' + markers +
                    ' bad=' + bad.join(',') + ' end';
  document.body.appendChild(out);
})();
</script>
)JS";

// Writes html as dir/report.html and returns Chromium's DOM of it after its scripts ran. As root
// in CI: no sandbox. Nothing may reach the network; every resource is in the file.
Ran dump_dom(const std::string& chromium, const fs::path& dir, const std::string& html) {
  const fs::path page = dir / "report.html";
  write(page, html);
  const fs::path profile = dir / "profile";
  fs::remove_all(profile);
  fs::create_directories(profile);
  const std::string cmd = "timeout 120 " + chromium +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                          " --disable-background-networking --disable-component-update --disable-sync"
                          " --disable-dev-shm-usage --window-size=1280,2000 --user-data-dir=" +
                          profile.string() + " --dump-dom file://" + page.string();
  Ran r = run(cmd);
  if (r.status != 0) r.out = cmd + "\n" + r.out;
  fs::remove_all(profile);
  return r;
}

TEST(HtmlInChromium, EveryPlotIsDrawn) {
  const std::string chromium = find_program({"chromium", "chromium-browser", "google-chrome"});
  ASSERT_FALSE(chromium.empty()) << "Chromium is not installed: apt-get install chromium (ci/setup.sh does); the HTML "
                                    "report is checked in a real browser";
  const auto& c = sample().comparison;
  std::string html = report::render_html(c, sample().inputs);
  const size_t body_end = html.rfind("</body>");
  ASSERT_NE(body_end, std::string::npos);
  html.insert(body_end, kChecker);
  const Ran r = dump_dom(chromium, scratch("html"), html);
  ASSERT_EQ(r.status, 0) << r.out;
  std::smatch m;
  const std::regex line("plots=([0-9]+) drawn=([0-9]+) paths=([0-9]+) markers=([0-9]+) bad=([^ ]*) end");
  ASSERT_TRUE(std::regex_search(r.out, m, line)) << "the checker did not run; Chromium printed:\n" << r.out.substr(0, 4000);
  size_t tested_markers = 0;
  for (const auto& f : c.functions)
    for (const auto& q : f.quantiles) tested_markers += q.tested() ? 2 : 0;
  const size_t runs = sample().base.runs.size() + sample().head.runs.size();
  EXPECT_EQ(std::stoul(m[1]), c.functions.size()) << "one plot per function";
  EXPECT_EQ(std::stoul(m[2]), c.functions.size()) << "plots not drawn: " << m[5];
  EXPECT_EQ(std::stoul(m[3]), c.functions.size() * (runs + 2)) << "a path per run and side, and two pooled";
  EXPECT_EQ(std::stoul(m[4]), tested_markers) << "a marker per tested quantile and side";
}

// The sample with code and profile annotations on its regressed function (Annotations).
Annotations annotated() {
  Annotations a;
  CodeNote code;
  code.moved_bytes = 1952;
  a.functions[kRegressed].code = code;
  ProfileNote p;
  p.base_samples = 100, p.head_samples = 300;
  p.base_ns_per_call = 1000, p.head_ns_per_call = 3000;
  ProfileFrameNote f;
  f.frame = "main.<spin>&\"q\"";
  f.path = {"main.wait"};
  f.base_samples = 10, f.head_samples = 210, f.head_ns_per_call = 2100, f.base_ns_per_call = 100;
  f.p_value = 1e-20;
  f.significant = true;
  p.frames = {f};
  p.stacks = {{{kRegressed, "main.wait", "main.<spin>&\"q\""}, 100, 2100},
              {{kRegressed, "main.work"}, 900, 900},
              {{kRegressed, "main.gone"}, 300, 0}};
  a.functions[kRegressed].profile = p;
  a.profile_files = {"profile-base.pb.gz", "profile-head.pb.gz"};
  return a;
}

TEST(JunitSchema, AnnotatedReportIsValid) {
  const std::string x = xmllint();
  if (x.empty()) return;
  const auto a = annotated();
  auto in = sample().inputs;
  in.notes = &a;
  const fs::path f = scratch("junit-annotated") / "junit.xml";
  const std::string xml = report::render_junit(sample().comparison, in);
  EXPECT_NE(xml.find("; profile: "), std::string::npos);
  write(f, xml);
  const Ran r = run(x + " --noout --schema " + kSchema + " " + f.string());
  EXPECT_EQ(r.status, 0) << r.out;
}

// The differential flame graph as Chromium lays it out: every frame a visible box inside the SVG,
// boxes of a row side by side, the vanished frame dashed.
TEST(HtmlInChromium, FlameGraphIsDrawn) {
  const std::string chromium = find_program({"chromium", "chromium-browser", "google-chrome"});
  ASSERT_FALSE(chromium.empty()) << "Chromium is not installed: apt-get install chromium (ci/setup.sh does)";
  const auto a = annotated();
  auto in = sample().inputs;
  in.notes = &a;
  std::string html = report::render_html(sample().comparison, in);
  const size_t body_end = html.rfind("</body>");
  ASSERT_NE(body_end, std::string::npos);
  html.insert(body_end, R"JS(<script>
(function () {
  var svgs = document.querySelectorAll('svg.flame'), boxes = 0, visible = 0, dashed = 0;
  svgs.forEach(function (svg) {
    var frame = svg.getBoundingClientRect();
    svg.querySelectorAll('rect').forEach(function (r) {
      boxes++;
      var b = r.getBoundingClientRect();
      if (b.width > 0.4 && b.height > 10 && b.left >= frame.left - 1 && b.right <= frame.right + 1) visible++;
      if (r.classList.contains('vanished')) dashed++;
    });
  });
  var out = document.createElement('pre');
  out.textContent = 'flames=' + svgs.length + ' boxes=' + boxes + ' visible=' + visible + ' dashed=' + dashed + ' end';
  document.body.appendChild(out);
})();
</script>
)JS");
  const Ran r = dump_dom(chromium, scratch("html-flame"), html);
  ASSERT_EQ(r.status, 0) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("flames=([0-9]+) boxes=([0-9]+) visible=([0-9]+) dashed=([0-9]+) end")))
      << r.out.substr(0, 4000);
  EXPECT_EQ(m[1], "1");
  EXPECT_EQ(m[2], "5") << "the function, main.wait, its leaf, main.work, main.gone";
  EXPECT_EQ(m[3], "5");
  EXPECT_EQ(m[4], "1") << "main.gone vanished";
}

}  // namespace
}  // namespace gate::testing
