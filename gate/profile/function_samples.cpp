// samples_by_function: each location's functions resolved to the asked names once, then one pass
// over the samples.
#include "profile/function_samples.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace gate::profile {

std::vector<FunctionSamples> samples_by_function(const Profile& p, const std::vector<std::string>& names) {
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t i = 0; i < names.size(); ++i) index.emplace(names[i], i);
  // Per location: the asked functions among its frames (inlined ones included), and whether it is
  // the [gate probe] frame.
  std::vector<std::vector<uint32_t>> holds(p.locations.size());
  std::vector<bool> is_probe(p.locations.size(), false);
  for (size_t l = 0; l < p.locations.size(); ++l)
    for (const auto& f : p.locations[l].frames) {
      if (f.function == kGateProbeFrame) is_probe[l] = true;
      if (auto it = index.find(f.function); it != index.end()) holds[l].push_back(it->second);
    }
  std::vector<FunctionSamples> out(names.size());
  std::vector<uint32_t> seen;
  auto whole = [&](const Sample& s) { return !s.locations.empty() && p.locations[s.locations.back()].root; };
  // The outermost function of a stack's frames in the binary ("" when none).
  auto outermost = [&](const Sample& s) -> const std::string* {
    for (auto l = s.locations.rbegin(); l != s.locations.rend(); ++l) {
      const auto& frames = p.locations[*l].frames;
      if (!frames.empty() && frames.back().function != kOutsideBinaryFrame && frames.back().function != kGateProbeFrame)
        return &frames.back().function;
    }
    return nullptr;
  };
  // Per function name: the asked functions seen outside it (toward the root) in stacks walked whole.
  std::unordered_map<std::string, std::set<uint32_t>> under;
  std::vector<const Sample*> cut;  // stacks walked short of their root, holding no asked function
  for (const Sample& s : p.samples) {
    seen.clear();
    bool probe = false;
    for (uint32_t l : s.locations) {
      probe = probe || is_probe[l];
      seen.insert(seen.end(), holds[l].begin(), holds[l].end());
    }
    // Locations run leaf to root and a location's frames innermost first: the first asked
    // function met is the innermost one.
    if (!probe && !seen.empty()) out[seen.front()].self += s.count;
    if (!probe && seen.empty() && !whole(s)) cut.push_back(&s);
    if (!probe && !seen.empty() && whole(s)) {
      std::set<uint32_t> outer;
      for (auto l = s.locations.rbegin(); l != s.locations.rend(); ++l)
        for (auto f = p.locations[*l].frames.rbegin(); f != p.locations[*l].frames.rend(); ++f) {
          if (!outer.empty()) under[f->function].insert(outer.begin(), outer.end());
          if (auto it = index.find(f->function); it != index.end()) outer.insert(it->second);
        }
    }
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (uint32_t i : seen) (probe ? out[i].probe : out[i].cpu) += s.count;
  }
  for (const Sample* s : cut)
    if (const std::string* fn = outermost(*s))
      if (auto it = under.find(*fn); it != under.end())
        for (uint32_t i : it->second) out[i].lost += s->count;
  return out;
}

}  // namespace gate::profile
