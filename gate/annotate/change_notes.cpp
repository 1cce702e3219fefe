// Code and profile notes beside the verdicts (annotate/change_notes.hpp).
#include "annotate/change_notes.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string_view>

#include "analysis/code_diff.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "common/shell.hpp"
#include "elf/elf_file.hpp"
#include "explain/change_notes_text.hpp"
#include "profile/pprof.hpp"
#include "profile/profile_diff.hpp"
#include "profile/profile_files.hpp"
#include "profile/recorder.hpp"

namespace gate::annotate {
namespace {

bool flagged(const stats::FunctionComparison& f) {
  return f.verdict == stats::Verdict::kRegression || f.verdict == stats::Verdict::kSuspect;
}

// A sample's frames leaf first (inlined frames expanded, innermost first within a location).
std::vector<const std::string*> frames_of(const profile::Profile& p, const profile::Sample& s) {
  std::vector<const std::string*> out;
  for (uint32_t id : s.locations)
    for (const auto& fr : p.locations[id].frames) out.push_back(&fr.function);
  return out;
}

struct Paths {
  // (function ... leaf) -> samples, within the function's subtree (its outermost call on the stack).
  std::map<std::vector<std::string>, uint64_t> stacks;
};

Paths subtree_paths(const profile::Profile& p, const std::string& function) {
  Paths out;
  for (const auto& s : p.samples) {
    const auto fr = frames_of(p, s);
    size_t at = fr.size();
    for (size_t i = fr.size(); i-- > 0;)
      if (*fr[i] == function) {
        at = i;
        break;
      }
    if (at == fr.size()) continue;
    std::vector<std::string> path;
    for (size_t i = at + 1; i-- > 0;) path.push_back(*fr[i]);
    out.stacks[path] += s.count;
  }
  return out;
}

double per_call(uint64_t samples, const profile::Profile* p, uint64_t calls) {
  return p && calls ? static_cast<double>(samples) * static_cast<double>(p->period_ns()) / static_cast<double>(calls) : 0;
}

}  // namespace

std::string regex_quote(const std::string& name) {
  std::string out;
  for (char ch : name) {
    if (std::string_view("\\.+*?()|[]{}^$").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out;
}

std::string pprof_diff_command(const std::string& base_file, const std::string& head_file, const std::string& function) {
  return "go tool pprof -diff_base " + shell_quote(base_file) + " -show_from=" +
         shell_quote("^" + regex_quote(function) + "$") + " " + shell_quote(head_file);
}

uint64_t total_calls(const ResultFile& r, const std::string& function) {
  uint64_t n = 0;
  for (const auto& run : r.runs)
    if (const auto* fr = run.find(function)) n += fr->calls;
  return n;
}

void note_code(Annotations& notes, const stats::Comparison& c, const std::string& base_binary,
               const std::string& head_binary, const WhyLog& log) {
  if (base_binary.empty() || head_binary.empty()) return;
  std::vector<std::string> names;
  for (const auto& f : c.functions) names.push_back(f.name);
  if (names.empty()) return;
  try {
    const auto diff = analysis::compare_code(elf::ElfFile::open(base_binary), elf::ElfFile::open(head_binary), names);
    for (const auto& f : c.functions) {
      const auto it = diff.find(f.name);
      if (it == diff.end() || !it->second.in_both) continue;
      const auto& code = it->second;
      CodeNote n;
      n.same = code.same;
      n.moved_bytes = code.moved_bytes;
      n.callees_compared = code.callees_compared;
      n.changed_callees = code.changed_callees;
      notes.functions[f.name].code = n;
      if (flagged(f)) log(explain::code_log_line(f.name, n));
    }
  } catch (const Error& e) {
    log(explain::code_not_compared(e.what()));
  }
}

void note_profiles(Annotations& notes, const stats::Comparison& c, const ResultFile& base,
                   const ResultFile& head, const ProfilePair& pp, const WhyLog& log) {
  if (!pp.base || !pp.head) return;
  for (const auto& f : c.functions) {
    if (!flagged(f)) continue;
    const uint64_t bc = total_calls(base, f.name), hc = total_calls(head, f.name);
    const auto d = profile::diff_subtree(*pp.base, *pp.head, f.name, bc, hc);
    ProfileNote n;
    n.base_samples = d.base_samples, n.head_samples = d.head_samples;
    n.base_ns_per_call = d.base_ns_per_call, n.head_ns_per_call = d.head_ns_per_call;
    const Paths bp = subtree_paths(*pp.base, f.name), hp = subtree_paths(*pp.head, f.name);
    // Each leaf's most sampled path (head's, else base's), for the line's "(caller, ...)".
    std::map<std::string, std::pair<uint64_t, const std::vector<std::string>*>> dominant;
    for (const Paths* side : {&hp, &bp})
      for (const auto& [path, count] : side->stacks) {
        auto& d0 = dominant[path.back()];
        if (!d0.second || (side == &hp && count > d0.first)) d0 = {count, &path};
      }
    uint64_t probe = 0;
    for (const auto& [path, count] : hp.stacks)
      if (path.back() == profile::kGateProbeFrame) probe += count;
    n.head_probe_share = d.head_samples ? static_cast<double>(probe) / static_cast<double>(d.head_samples) : 0;
    for (const auto& fc : d.frames) {
      ProfileFrameNote fn;
      fn.frame = fc.frame;
      if (const auto it = dominant.find(fc.frame); it != dominant.end() && it->second.second) {
        const auto& path = *it->second.second;  // function ... leaf: keep what lies between
        if (path.size() > 2) fn.path.assign(path.begin() + 1, path.end() - 1);
      }
      fn.base_samples = fc.base_samples, fn.head_samples = fc.head_samples;
      fn.base_ns_per_call = fc.base_ns_per_call, fn.head_ns_per_call = fc.head_ns_per_call;
      fn.p_value = fc.p_value;
      fn.significant = fc.significant;
      n.frames.push_back(std::move(fn));
    }
    std::map<std::vector<std::string>, std::pair<uint64_t, uint64_t>> both;
    for (const auto& [path, count] : bp.stacks) both[path].first += count;
    for (const auto& [path, count] : hp.stacks) both[path].second += count;
    for (const auto& [path, counts] : both)
      n.stacks.push_back({path, per_call(counts.first, pp.base, bc), per_call(counts.second, pp.head, hc)});
    std::sort(n.stacks.begin(), n.stacks.end(), [](const auto& x, const auto& y) {
      return std::max(x.base_ns_per_call, x.head_ns_per_call) > std::max(y.base_ns_per_call, y.head_ns_per_call);
    });
    constexpr size_t kMaxStacks = 300;
    if (n.stacks.size() > kMaxStacks) n.stacks.resize(kMaxStacks);
    if (!pp.base_file.empty() && !pp.head_file.empty())
      n.pprof_command = pprof_diff_command(pp.base_file, pp.head_file, f.name);
    log(explain::profile_log_line(f.name, n));
    if (!n.pprof_command.empty()) log("  " + n.pprof_command);
    notes.functions[f.name].profile = std::move(n);
  }
}

void note_ab_profiles(Annotations& notes, const stats::Comparison& c, const ResultFile& base, const ResultFile& head,
                      profile::ProfileRecorder& rec, const std::string& base_file, const std::string& head_file,
                      const WhyLog& log) {
  notes.profile_files = {base_file, head_file};
  ProfilePair pp;
  pp.base = &rec.finish("base");
  pp.head = &rec.finish("head");
  pp.base_file = base_file;
  pp.head_file = head_file;
  note_profiles(notes, c, base, head, pp, log);
  bool any = false;
  for (const auto& [_, n] : notes.functions) any = any || n.profile.has_value();
  if (!any) log(explain::compare_profiles_hint(shell_quote(pp.base_file), shell_quote(pp.head_file)));
}

void note_check_profiles(Annotations& notes, const stats::Comparison& c, const ResultFile& base,
                         const ResultFile& head, const std::string& baseline, profile::ProfileRecorder& rec,
                         const std::string& head_file, const WhyLog& log) {
  const std::string base_file = profile::baseline_profile_path(baseline);
  if (!std::filesystem::exists(base_file)) {
    log(explain::no_baseline_profile(base_file));
    notes.profile_files = {head_file};
    return;
  }
  profile::Profile base_profile;
  try {
    base_profile = profile::read_pprof(base_file);
  } catch (const Error& e) {
    log(explain::baseline_profile_not_compared(e.what()));
    notes.profile_files = {head_file};
    return;
  }
  notes.profile_files = {base_file, head_file};
  ProfilePair pp{&base_profile, &rec.finish(""), base_file, head_file};
  note_profiles(notes, c, base, head, pp, log);
}

void note_aa_profiles(const stats::Comparison& c, const ResultFile& base, const ResultFile& head,
                      profile::ProfileRecorder& rec, const WhyLog& log) {
  const auto& bp = rec.finish("base");
  const auto& hp = rec.finish("head");
  size_t frames = 0, flagged_frames = 0;
  for (const auto& f : c.functions) {
    const auto diff = profile::diff_subtree(bp, hp, f.name, total_calls(base, f.name), total_calls(head, f.name));
    for (const auto& fc : diff.frames) {
      ++frames;
      if (!fc.significant) continue;
      ++flagged_frames;
      log(explain::aa_frame_flagged(f.name, fc.frame, fc.p_value));
    }
  }
  log(explain::aa_frames_summary(flagged_frames, frames));
}

}  // namespace gate::annotate
