// Raw stacks to source frames: inline expansion, [gate probe], and the walk's own accounting.
#include "profile/symbolize.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace gate::profile {

bool in_uprobe_handling(const std::vector<uint64_t>& kernel, const KernelSymbols& ksyms) {
  if (!ksyms) return false;
  return std::any_of(kernel.begin(), kernel.end(), [&](uint64_t pc) {
    const std::string name = ksyms(pc);
    // The breakpoint's and the single-step's trap entries (asm_exc_int3, exc_int3, do_int3_user,
    // asm_exc_debug, exc_debug_user, noist_exc_debug) run before any uprobe-named function: their
    // samples carry the probed function's user stack and, untagged, read as its own CPU time.
    // A Go program takes no int3 or #DB trap of its own outside a debugger.
    return name.find("uprobe") != std::string::npos || name == "handle_swbp" ||
           name.find("exc_int3") != std::string::npos || name.find("do_int3") != std::string::npos ||
           name.find("exc_debug") != std::string::npos;
  });
}

namespace {

class Builder {
 public:
  Builder(const analysis::PcLines& lines, Profile& out) : lines_(lines), out_(out) {}

  // A location for a leaf PC (looked up as is) or a return address (looked up at the call, -1).
  uint32_t location(uint64_t pc, bool leaf) {
    const uint64_t at = leaf ? pc : pc - 1;
    if (auto it = ids_.find(at); it != ids_.end()) return it->second;
    Location loc{at, lines_.frames(at), lines_.stack_root(at)};
    // The vDSO (clock_gettime under time.Now), cgo's C libraries: one name for all, so that
    // their samples add up across processes whose mappings ASLR placed apart.
    if (loc.frames.empty()) loc.frames.push_back({kOutsideBinaryFrame, "", 0, 0, false});
    return add(at, std::move(loc));
  }
  uint32_t gate_probe() {
    if (!probe_) probe_ = add(0, Location{0, {{kGateProbeFrame, "", 0, 0, false}}});
    return *probe_;
  }

 private:
  uint32_t add(uint64_t at, Location loc) {
    const auto id = static_cast<uint32_t>(out_.locations.size());
    out_.locations.push_back(std::move(loc));
    ids_.emplace(at, id);
    return id;
  }
  const analysis::PcLines& lines_;
  Profile& out_;
  std::map<uint64_t, uint32_t> ids_;
  std::optional<uint32_t> probe_;
};

}  // namespace

Profile symbolize(const RawProfile& raw, const analysis::PcLines& lines, const KernelSymbols& ksyms) {
  Profile out;
  out.hz = raw.hz;
  out.lost = raw.dropped + raw.no_user_stack;
  out.lost_map_full = raw.stack_map_full;
  Builder b(lines, out);
  std::map<std::vector<uint32_t>, uint64_t> merged;  // fix-ups can make two raw stacks one
  for (const RawStack& s : raw.stacks) {
    out.total += s.count;
    if (s.user.empty()) continue;  // counted in lost by the kernel's own counter
    std::vector<uint64_t> user = s.user;
    const bool trap = !s.kernel.empty() && in_uprobe_handling(s.kernel, ksyms);
    // Single-stepping out of line: the PC is in the [uprobes] page; the probed address stands
    // for it. In the int3 trap the PC is one past the breakpoint.
    if (s.in_probe && s.probe_addr) {
      // Done stepping a probed `ret`, the PC is already in the caller (the kernel side walked from
      // there): the probed function goes in front of it. Else the probed address stands for the PC.
      const auto* now = lines.function_at(user[0]);
      if (now && now != lines.function_at(s.probe_addr)) user.insert(user.begin(), s.probe_addr);
      else user[0] = s.probe_addr;
    } else if (trap && lines.function_at(user[0] - 1)) {
      user[0] -= 1;
    }
    if (s.by_table) out.by_table += s.count;
    if (s.fp_differed) out.fp_differed += s.count;
    // The walk's frames in the binary's code, from the leaf: a word after them that is no code's is
    // where the walk lost its way, unless they end at a stack's root. A stack with no frame in the
    // binary at all is another program's (the shell that starts the workload, the loader): its own.
    size_t known = 1;
    while (known < user.size() && lines.function_at(user[known] - 1)) ++known;
    if (known > 1 || lines.function_at(user[0])) {
      if (!lines.stack_root(user[known - 1] - (known > 1 ? 1 : 0))) {
        out.not_to_root += s.count;
        if (known == 1) out.no_caller += s.count;  // a root sampled itself has no caller to find
      }
    }
    std::vector<uint32_t> locs;
    if (s.in_probe || trap) {
      locs.push_back(b.gate_probe());
      out.in_gate_probe += s.count;
    }
    if (!lines.function_at(user[0])) out.unknown_leaf += s.count;
    for (size_t i = 0; i < user.size(); ++i) locs.push_back(b.location(user[i], i == 0));
    merged[std::move(locs)] += s.count;
  }
  out.total += out.lost;
  for (auto& [locs, count] : merged) out.samples.push_back({locs, count});
  return out;
}

KernelSymbols read_kallsyms() {
  auto table = std::make_shared<std::vector<std::pair<uint64_t, std::string>>>();
  std::ifstream in("/proc/kallsyms");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    uint64_t addr = 0;
    char type = 0;
    std::string name;
    if (!(f >> std::hex >> addr >> type >> name) || addr == 0) continue;
    if (type == 't' || type == 'T') table->emplace_back(addr, name);
  }
  std::sort(table->begin(), table->end());
  return [table](uint64_t pc) -> std::string {
    auto it = std::upper_bound(table->begin(), table->end(), pc,
                               [](uint64_t v, const auto& e) { return v < e.first; });
    return it == table->begin() ? "" : std::prev(it)->second;
  };
}

}  // namespace gate::profile
