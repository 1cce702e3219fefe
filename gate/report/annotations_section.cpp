// Annotations in every report format (report/annotations_section.hpp).
#include "report/annotations_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "common/format.hpp"
#include "explain/change_notes_text.hpp"
#include "report/report_util.hpp"

namespace gate::report {
namespace {

using Json = nlohmann::ordered_json;

bool flagged(stats::Verdict v) { return v == stats::Verdict::kRegression || v == stats::Verdict::kSuspect; }


const FunctionNotes* find(const Annotations* notes, const std::string& name) {
  if (!notes) return nullptr;
  const auto it = notes->functions.find(name);
  return it == notes->functions.end() ? nullptr : &it->second;
}

}  // namespace


std::vector<std::string> annotation_lines(const stats::FunctionComparison& f, const Annotations* notes) {
  std::vector<std::string> out;
  const FunctionNotes* n = find(notes, f.name);
  if (!n) return out;
  if (n->profile) out.push_back("profile: " + explain::profile_sentence(f.name, *n->profile));
  if (n->code && (flagged(f.verdict) || !n->code->same)) out.push_back("code: " + explain::code_sentence(*n->code));
  if (n->layout_share)
    out.push_back("layout_share: " + fmt("%.0f", 100 * *n->layout_share) +
                  "% of its between-unit variance comes from the code layout variant");
  if (n->profile && !n->profile->pprof_command.empty()) out.push_back("pprof: " + n->profile->pprof_command);
  return out;
}

std::vector<std::string> annotation_summary_lines(const Annotations* notes) {
  std::vector<std::string> out;
  if (!notes) return out;
  auto side = [](int b, int h) { return b == h ? std::to_string(b) : std::to_string(b) + " base / " + std::to_string(h) + " head"; };
  // One execution a unit and one layout a side are what a reader assumes: said only otherwise, so
  // that a quiet pass stays short (JSON always carries the figures).
  if (notes->base_executions_per_unit > 1 || notes->head_executions_per_unit > 1)
    out.push_back("executions per unit: " + side(notes->base_executions_per_unit, notes->head_executions_per_unit));
  if (notes->base_layouts > 1 || notes->head_layouts > 1)
    out.push_back("layouts: " + side(notes->base_layouts, notes->head_layouts));
  if (!notes->profile_files.empty()) {
    std::string s = "CPU profiles: ";
    for (size_t i = 0; i < notes->profile_files.size(); ++i) s += (i ? ", " : "") + notes->profile_files[i];
    out.push_back(s);
  }
  return out;
}

void annotation_json(Json& function, const std::string& name, const Annotations* notes) {
  const FunctionNotes* n = find(notes, name);
  if (!n) return;
  if (n->code)
    function["code"] = Json{{"same", n->code->same},
                            {"moved_bytes", n->code->moved_bytes},
                            {"callees_compared", n->code->callees_compared},
                            {"changed_callees", n->code->changed_callees},
                            {"layout_or_data", n->code->layout_or_data()}};
  if (n->profile) {
    const ProfileNote& p = *n->profile;
    Json frames = Json::array();
    for (const auto& f : p.frames)
      frames.push_back(Json{{"frame", f.frame},
                            {"path", f.path},
                            {"base_samples", f.base_samples},
                            {"head_samples", f.head_samples},
                            {"base_ns_per_call", f.base_ns_per_call},
                            {"head_ns_per_call", f.head_ns_per_call},
                            {"delta_ns_per_call", f.head_ns_per_call - f.base_ns_per_call},
                            {"p_value", f.p_value},
                            {"significant", f.significant}});
    function["profile"] = Json{{"base_samples", p.base_samples},
                               {"head_samples", p.head_samples},
                               {"base_ns_per_call", p.base_ns_per_call},
                               {"head_ns_per_call", p.head_ns_per_call},
                               {"delta_ns_per_call", p.head_ns_per_call - p.base_ns_per_call},
                               {"head_probe_share", p.head_probe_share},
                               {"summary", explain::profile_sentence(name, p)},
                               {"frames", frames},
                               {"pprof_command", p.pprof_command}};
  }
  if (n->layout_share) function["layout_share"] = *n->layout_share;
}

Json annotation_summary_json(const Annotations* notes) {
  if (!notes) return Json(nullptr);
  auto known = [](int v) { return v > 0 ? Json(v) : Json(nullptr); };
  return Json{{"profile_files", notes->profile_files},
              {"executions_per_unit", Json{{"base", known(notes->base_executions_per_unit)},
                                           {"head", known(notes->head_executions_per_unit)}}},
              {"layouts", Json{{"base", known(notes->base_layouts)}, {"head", known(notes->head_layouts)}}}};
}

// ---- HTML: differential flame graph --------------------------------------------------------------

namespace {

struct Node {
  std::string name;
  double base = 0, head = 0;  // inclusive ns per call
  double width = 0;           // drawn width in ns: head's, or base's for a vanished frame
  std::map<std::string, std::unique_ptr<Node>> children;
};

double lay_out(Node& n) {
  double kids = 0;
  for (auto& [_, c] : n.children) kids += lay_out(*c);
  n.width = std::max(n.head > 0 ? n.head : n.base, kids);
  return n.width;
}

std::string colour(const Node& n) {
  if (n.head <= 0) return "#b8c4d6";   // vanished: grey-blue (hatched over)
  if (n.base <= 0) return "#c0392b";   // new in head
  const double rel = (n.head - n.base) / std::max(n.base, n.head);  // -1 .. 1
  const int k = static_cast<int>(std::lround(std::min(1.0, std::abs(rel) * 2) * 160));
  char b[16];
  if (rel >= 0) std::snprintf(b, sizeof b, "#ff%02x%02x", 220 - k * 220 / 160 + 0, 220 - k * 220 / 160 + 0);
  else std::snprintf(b, sizeof b, "#%02x%02xff", 220 - k * 220 / 160, 220 - k * 220 / 160);
  return b;
}

void draw(const Node& n, double x, int depth, double scale, std::string& svg, int& max_depth) {
  constexpr int kRow = 18;
  constexpr int kMaxDepth = 40;
  if (depth > kMaxDepth || n.width * scale < 0.3) return;
  max_depth = std::max(max_depth, depth);
  const double w = n.width * scale;
  const double change = n.head - n.base;
  const std::string title = n.name + ": base " + micros(n.base) + ", head " + micros(n.head) + " per call (" +
                            signed_micros(change) + (n.head <= 0 ? ", vanished" : n.base <= 0 ? ", new" : "") + ")";
  svg += "<g><title>" + xml_escape(title) + "</title><rect x=\"" + fmt("%.1f", x) + "\" y=\"" +
         std::to_string(depth * kRow) + "\" width=\"" + fmt("%.1f", std::max(0.5, w - 0.5)) + "\" height=\"" +
         std::to_string(kRow - 1) + "\" fill=\"" + colour(n) + "\"" +
         (n.head <= 0 ? " class=\"vanished\" stroke=\"#5a6f8f\" stroke-dasharray=\"3,2\"" : "") + "/>";
  if (w > 40) {
    const size_t chars = static_cast<size_t>(w / 7);
    std::string label = explain::short_name(n.name) + " " + signed_micros(change);
    if (label.size() > chars) label = label.substr(0, chars > 2 ? chars - 2 : 0) + "..";
    svg += "<text x=\"" + fmt("%.1f", x + 3) + "\" y=\"" + std::to_string(depth * kRow + 13) + "\">" +
           xml_escape(label) + "</text>";
  }
  svg += "</g>\n";
  double cx = x;
  for (const auto& [_, c] : n.children) {
    draw(*c, cx, depth + 1, scale, svg, max_depth);
    cx += c->width * scale;
  }
}

}  // namespace

std::string flame_graph_svg(const std::string& function, const ProfileNote& p) {
  Node root;
  root.name = function;
  for (const auto& s : p.stacks) {
    Node* n = &root;
    root.base += s.base_ns_per_call, root.head += s.head_ns_per_call;
    for (size_t i = 1; i < s.frames.size(); ++i) {
      auto& slot = n->children[s.frames[i]];
      if (!slot) {
        slot = std::make_unique<Node>();
        slot->name = s.frames[i];
      }
      n = slot.get();
      n->base += s.base_ns_per_call, n->head += s.head_ns_per_call;
    }
  }
  if (lay_out(root) <= 0) return "";
  constexpr double kWidth = 1000;
  std::string body;
  int max_depth = 0;
  draw(root, 0, 0, kWidth / root.width, body, max_depth);
  const int height = (max_depth + 1) * 18;
  return "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", kWidth) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + fmt("%.0f", kWidth) + " " +
         std::to_string(height) + "\" font-family=\"monospace\" font-size=\"11\">\n" + body + "</svg>";
}

std::string annotation_html(const stats::FunctionComparison& f, const Annotations* notes) {
  const FunctionNotes* n = find(notes, f.name);
  if (!n) return "";
  const auto lines = annotation_lines(f, notes);
  if (lines.empty()) return "";
  std::string h = "<div class=\"why\"><ul>";
  for (const auto& l : lines) h += "<li>" + xml_escape(l) + "</li>";
  h += "</ul>";
  if (n->profile) {
    const std::string svg = flame_graph_svg(f.name, *n->profile);
    if (!svg.empty())
      h += "<p>Differential flame graph of " + xml_escape(f.name) +
           ", per call: widths are the head's time, red slower, blue faster, dashed frames vanished in the "
           "head (drawn at their base width).</p>\n" + svg;
  }
  return h + "</div>\n";
}

}  // namespace gate::report
