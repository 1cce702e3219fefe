// Annotations in every format (report/annotations_section.hpp): the sample comparison with
// code and profile notes on its regressed function (kRegressed), a layout-or-data note on another,
// and the comparison-wide facts; each format must show them, and show nothing new without them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "explain/change_notes_text.hpp"
#include "report/annotations_section.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/junit_report.hpp"
#include "report/markdown_report.hpp"
#include "report/report_util.hpp"
#include "report/text_report.hpp"
#include "report_fixture.hpp"

namespace gate::testing {
namespace {

Annotations notes() {
  Annotations a;
  CodeNote changed;
  changed.same = false;
  changed.moved_bytes = 1952;
  changed.callees_compared = true;
  ProfileNote p;
  p.base_samples = 812, p.head_samples = 1050;
  p.base_ns_per_call = 38100, p.head_ns_per_call = 49400;
  ProfileFrameNote busy;
  busy.frame = "[outside the Go binary: vdso, C]";
  busy.path = {"example.com/shop/internal/instr.(*Func).exit", "time.Since", "runtime.nanotime"};
  busy.base_samples = 10, busy.head_samples = 300;
  busy.base_ns_per_call = 400, busy.head_ns_per_call = 11300;
  busy.p_value = 1e-30;
  busy.significant = true;
  ProfileFrameNote quiet;
  quiet.frame = "example.com/shop/pricing.tax";
  quiet.base_samples = 100, quiet.head_samples = 104;
  quiet.base_ns_per_call = 5000, quiet.head_ns_per_call = 5100;
  quiet.p_value = 0.8;
  p.frames = {busy, quiet};
  p.stacks = {{{kRegressed, "example.com/shop/internal/instr.(*Func).exit", "time.Since", "[vdso]"}, 400, 11300},
              {{kRegressed, "example.com/shop/pricing.tax"}, 5000, 5100},
              {{kRegressed, "example.com/shop/pricing.gone"}, 2000, 0}};
  p.head_probe_share = 0.12;
  p.pprof_command = "go tool pprof -diff_base profile-base.pb.gz -show_from='^x$' profile-head.pb.gz";
  a.functions[kRegressed].code = changed;
  a.functions[kRegressed].profile = p;
  a.functions[kRegressed].layout_share = 0.25;
  CodeNote same;
  same.same = true;
  same.moved_bytes = 1952;
  same.callees_compared = true;
  a.functions[kImproved].code = same;
  a.profile_files = {"profile-base.pb.gz", "profile-head.pb.gz"};
  a.base_executions_per_unit = a.head_executions_per_unit = 3;
  a.base_layouts = a.head_layouts = 4;
  return a;
}

report::ReportInputs with(const Annotations& a) {
  report::ReportInputs in = sample().inputs;
  in.notes = &a;
  return in;
}

TEST(Annotations, Sentences) {
  CodeNote n;
  n.same = false, n.moved_bytes = 1952;
  EXPECT_EQ(explain::code_sentence(n), "code changed, moved 1952 bytes");
  n.same = true, n.callees_compared = true;
  EXPECT_TRUE(n.layout_or_data());
  EXPECT_EQ(explain::code_sentence(n),
            "same code (moved 1952 bytes), callees same: the change may come from layout or data, not its own code");
  n.changed_callees = {"example.com/shop/pricing.Apply"};
  EXPECT_EQ(explain::code_sentence(n), "same code (moved 1952 bytes); callees changed: pricing.Apply");
  EXPECT_EQ(explain::short_name("example.com/shop/internal/instr.(*Func).exit"), "instr.(*Func).exit");
  EXPECT_EQ(explain::short_name("main.f"), "main.f");
  const auto a = notes();
  const std::string line = explain::profile_sentence(kRegressed, *a.functions.at(kRegressed).profile);
  EXPECT_TRUE(contains(line, "shop.(*Cart).Checkout +11.3us/call")) << line;
  EXPECT_TRUE(contains(line, "[outside the Go binary: vdso, C] +10.9us (instr.(*Func).exit, time.Since, runtime.nanotime)")) << line;
  EXPECT_FALSE(contains(line, "pricing.tax")) << "not significant: " << line;
  EXPECT_TRUE(contains(line, "12% of head's in [gate probe]")) << line;
  // A longer path: the program's own frames, then the last two.
  auto p = *a.functions.at(kRegressed).profile;
  p.frames[0].path = {"example.com/shop/internal/instr.(*Func).Exit", "example.com/shop/internal/instr.(*Func).exit",
                      "example.com/shop/internal/instr.clock", "time.Since", "time.runtimeNano", "runtime.nanotime",
                      "runtime.nanotime1"};
  const std::string longer = explain::profile_sentence(kRegressed, p);
  EXPECT_TRUE(contains(longer, "(instr.(*Func).Exit, instr.(*Func).exit, instr.clock, ..., runtime.nanotime, runtime.nanotime1)"))
      << longer;
  p.frames[0].path = {"runtime.a", "runtime.b", "runtime.c", "runtime.d"};
  EXPECT_TRUE(contains(explain::profile_sentence(kRegressed, p), "(..., runtime.c, runtime.d)"));
}

TEST(Annotations, TextAndMarkdownShowTheLines) {
  const auto a = notes();
  const auto in = with(a);
  for (const bool md : {false, true}) {
    const std::string out = md ? report::render_markdown(sample().comparison, in) : report::render_text(sample().comparison, in);
    auto has = [&](const std::string& s) { return contains(out, md ? report::md_escape(s) : s); };
    EXPECT_TRUE(has("profile: shop.(*Cart).Checkout +11.3us/call")) << out;
    EXPECT_TRUE(has("code: code changed, moved 1952 bytes")) << out;
    EXPECT_TRUE(has("layout_share: 25%")) << out;
    EXPECT_TRUE(contains(out, "go tool pprof -diff_base")) << out;
    EXPECT_TRUE(has("executions per unit: 3")) << out;
    EXPECT_TRUE(has("layouts: 4")) << out;
    EXPECT_TRUE(has("CPU profiles: profile-base.pb.gz, profile-head.pb.gz")) << out;
  }
  // Without annotations nothing is added (the golden files stay as they are).
  EXPECT_FALSE(contains(report::render_text(sample().comparison, sample().inputs), "code:"));
  // One execution a unit and one layout a side go without saying.
  auto plain = notes();
  plain.base_executions_per_unit = plain.head_executions_per_unit = 1;
  plain.base_layouts = plain.head_layouts = 1;
  const std::string quiet = report::render_text(sample().comparison, with(plain));
  EXPECT_FALSE(contains(quiet, "executions per unit")) << quiet;
  EXPECT_FALSE(contains(quiet, "layouts: ")) << quiet;
}

TEST(Annotations, JsonFieldsAreAddedOnly) {
  const auto a = notes();
  const auto j = nlohmann::json::parse(report::render_json(sample().comparison, with(a)));
  const auto plain = nlohmann::json::parse(report::render_json(sample().comparison, sample().inputs));
  EXPECT_EQ(j.at("schema_version"), plain.at("schema_version"));
  bool regressed = false, improved = false;
  for (const auto& f : j.at("functions")) {
    if (f.at("name") == kRegressed) {
      regressed = true;
      EXPECT_EQ(f.at("code").at("same"), false);
      EXPECT_EQ(f.at("code").at("moved_bytes"), 1952);
      EXPECT_EQ(f.at("layout_share"), 0.25);
      EXPECT_EQ(f.at("profile").at("head_samples"), 1050);
      EXPECT_EQ(f.at("profile").at("frames").at(0).at("significant"), true);
      EXPECT_NEAR(f.at("profile").at("delta_ns_per_call").get<double>(), 11300, 1e-6);
    }
    if (f.at("name") == kImproved) {
      improved = true;
      EXPECT_EQ(f.at("code").at("same"), true);
      EXPECT_EQ(f.at("code").at("layout_or_data"), true);
      EXPECT_FALSE(f.contains("profile"));
    }
  }
  EXPECT_TRUE(regressed && improved);
  EXPECT_EQ(j.at("annotations").at("profile_files").size(), 2u);
  EXPECT_FALSE(plain.contains("annotations"));
  for (const auto& f : plain.at("functions")) EXPECT_FALSE(f.contains("code"));
  // Every field of the plain report is still there, unchanged in type.
  for (const auto& [k, v] : plain.items()) {
    ASSERT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j.at(k).type(), v.type()) << k;
  }
}

TEST(Annotations, JunitFailureMessageHasTheProfileLine) {
  const auto a = notes();
  const std::string x = report::render_junit(sample().comparison, with(a));
  EXPECT_TRUE(contains(x, "; profile: shop.(*Cart).Checkout +11.3us/call")) << x;
}

TEST(Annotations, HtmlHasASelfContainedDifferentialFlameGraph) {
  const auto a = notes();
  const std::string h = report::render_html(sample().comparison, with(a));
  EXPECT_TRUE(contains(h, "<svg class=\"flame\"")) << "no flame graph";
  EXPECT_TRUE(contains(h, "class=\"vanished\"")) << "pricing.gone vanished in the head: drawn, dashed";
  EXPECT_TRUE(contains(h, "fill=\"#ff")) << "a slower frame is red";
  EXPECT_FALSE(contains(h, "src=\"http")) << "self-contained";
  const std::string svg = report::flame_graph_svg(kRegressed, *a.functions.at(kRegressed).profile);
  // The root, three children, and the two frames under instr.exit.
  size_t rects = 0;
  for (size_t at = 0; (at = svg.find("<rect", at)) != std::string::npos; ++at) ++rects;
  EXPECT_EQ(rects, 6u) << svg;
  EXPECT_EQ(report::flame_graph_svg(kRegressed, ProfileNote{}), "");
}

}  // namespace
}  // namespace gate::testing
