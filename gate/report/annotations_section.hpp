// The Annotations of a comparison in every format: per flagged function a profile line
// ("pricing.Apply +11.3us/call: ..."), a code line ("code changed, moved 1952 bytes"), the layout
// share; per comparison the executions per unit, layouts and pprof files; JSON fields; and the
// HTML differential flame graph. Annotations never change a verdict.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/annotations.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// The lines under a function in text and Markdown (plain, not indented): profile, code, layout
// share, the pprof command. Empty when there is nothing to say. Code is shown for flagged
// functions, and for every other function only when its code changed.
std::vector<std::string> annotation_lines(const stats::FunctionComparison& f, const Annotations* notes);

// The comparison-wide lines: executions per unit, layouts, pprof files written.
std::vector<std::string> annotation_summary_lines(const Annotations* notes);

// JSON: fields added to a function's object ("code", "profile", "layout_share"), and the report's
// top-level "annotations" object. Absent annotations add nothing (schema 2 unchanged).
void annotation_json(nlohmann::ordered_json& function, const std::string& name, const Annotations* notes);
nlohmann::ordered_json annotation_summary_json(const Annotations* notes);

// HTML: the differential flame graph of a function's profile (inline SVG: widths are the head's
// time per call, red slower, blue faster, vanished frames hatched at their base width), with its
// lines; "" when the function has no profile note.
std::string annotation_html(const stats::FunctionComparison& f, const Annotations* notes);
std::string flame_graph_svg(const std::string& function, const ProfileNote& n);

}  // namespace gate::report
