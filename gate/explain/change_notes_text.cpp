// The sentences of the why-annotations (explain/change_notes_text.hpp).
#include "explain/change_notes_text.hpp"

#include <cstdio>

#include "common/format.hpp"

namespace gate::explain {
namespace {

std::string with_commas(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// Whether a Go function is the program's own code (package main, or an import path that starts
// with a domain), not the standard library or the runtime.
bool own_code(const std::string& fn) {
  const size_t slash = fn.find('/'), dot = fn.find('.');
  return fn.starts_with("main.") || (slash != std::string::npos && dot < slash);
}

// A frame's callers below the function, for a line: every frame of the program's own code (where
// its time is spent in the program: "instr.(*Func).exit"), then the last two (what it was doing:
// "runtime.nanotime, runtime.nanotime1"); a path of three or fewer in full.
std::string path_text(const std::vector<std::string>& path) {
  std::vector<size_t> shown;
  for (size_t i = 0; i < path.size(); ++i)
    if (path.size() <= 3 || own_code(path[i]) || i + 2 >= path.size()) shown.push_back(i);
  std::string s;
  for (size_t k = 0; k < shown.size(); ++k) {
    if (k > 0) s += shown[k] == shown[k - 1] + 1 ? ", " : ", ..., ";
    else if (shown[k] > 0) s += "..., ";
    s += short_name(path[shown[k]]);
  }
  return s;
}

}  // namespace

std::string short_name(const std::string& function) {
  const size_t bracket = function.find('[');
  const size_t slash = function.rfind('/', bracket == std::string::npos ? std::string::npos : bracket);
  return slash == std::string::npos ? function : function.substr(slash + 1);
}

std::string code_sentence(const CodeNote& n) {
  const std::string moved = "moved " + std::to_string(n.moved_bytes) + " bytes";
  if (!n.same) {
    std::string s = "code changed, " + moved;
    if (!n.changed_callees.empty()) s += "; callees changed too: " + std::to_string(n.changed_callees.size());
    return s;
  }
  if (n.layout_or_data())
    return "same code (" + moved + "), callees same: the change may come from layout or data, not its own code";
  if (!n.callees_compared) return "same code (" + moved + "), callees not compared";
  std::string s = "same code (" + moved + "); callees changed: ";
  for (size_t i = 0; i < n.changed_callees.size() && i < 5; ++i) s += (i ? ", " : "") + short_name(n.changed_callees[i]);
  if (n.changed_callees.size() > 5) s += ", ... (" + std::to_string(n.changed_callees.size()) + ")";
  return s;
}

std::string profile_sentence(const std::string& function, const ProfileNote& n, size_t max_frames) {
  std::string s = short_name(function) + " " + signed_micros(n.head_ns_per_call - n.base_ns_per_call) + "/call (base " +
                  micros(n.base_ns_per_call) + ", head " + micros(n.head_ns_per_call) + " in samples; " +
                  with_commas(n.base_samples) + " -> " + with_commas(n.head_samples) + " samples)";
  size_t shown = 0;
  for (const auto& f : n.frames) {
    if (!f.significant || shown == max_frames) continue;
    s += (shown++ ? ", " : ": ") + short_name(f.frame) + " " + signed_micros(f.head_ns_per_call - f.base_ns_per_call);
    if (!f.path.empty()) s += " (" + path_text(f.path) + ")";
  }
  if (shown == 0) {
    s += ": no frame changed beyond sampling noise";
    if (!n.frames.empty()) {
      char p[32];
      std::snprintf(p, sizeof p, "%.2g", n.frames.front().p_value);
      s += " (largest: " + short_name(n.frames.front().frame) + " " +
           signed_micros(n.frames.front().head_ns_per_call - n.frames.front().base_ns_per_call) + ", p=" + p + ")";
    }
  }
  if (n.head_probe_share >= 0.005) s += "; " + fmt("%.0f", 100 * n.head_probe_share) + "% of head's in [gate probe]";
  return s;
}

std::string code_log_line(const std::string& function, const CodeNote& n) {
  return "code of " + function + ": " + code_sentence(n);
}

std::string code_not_compared(const std::string& why) { return "warning: machine code not compared: " + why; }

std::string profile_log_line(const std::string& function, const ProfileNote& n) {
  return "why " + function + " got slower: " + profile_sentence(function, n);
}

std::string compare_profiles_hint(const std::string& base_file_quoted, const std::string& head_file_quoted) {
  return "compare them with: go tool pprof -top -diff_base " + base_file_quoted + " " + head_file_quoted;
}

std::string no_baseline_profile(const std::string& base_file) {
  return "no CPU profile beside the baseline (" + base_file +
         "): nothing to compare the head's with; record one with: gate record --profile --force";
}

std::string baseline_profile_not_compared(const std::string& why) {
  return "warning: the baseline's CPU profile is not compared: " + why;
}

std::string aa_frame_flagged(const std::string& function, const std::string& frame, double p_value) {
  return "A/A CPU profile: " + function + ": frame " + frame + " read beyond sampling noise (p=" + fmt("%.2g", p_value) +
         "): the machine's state changed between the sides";
}

std::string aa_frames_summary(size_t flagged_frames, size_t frames) {
  return "A/A CPU profile: " + std::to_string(flagged_frames) + " of " + std::to_string(frames) +
         " frames under the compared functions beyond sampling noise (5% false discovery rate per function; expected 0)";
}

}  // namespace gate::explain
