// What may bias a comparison, as values (stats::Finding): the two runs' contexts, and per
// function its probes and its lost or unmatched calls. explain/ says them in words.
#include "stats/findings.hpp"

#include <string>
#include <tuple>

namespace gate::stats {

void context_findings(const RunContext& b, const RunContext& h, std::vector<Finding>& out) {
  using Aspect = Finding::Aspect;
  auto check = [&](Aspect what, const std::string& bv, const std::string& hv) {
    if (!bv.empty() && !hv.empty() && bv != hv) out.push_back({Finding::Kind::kContextDiffers, what, "", "", bv, hv});
  };
  check(Aspect::kCpuModel, b.cpu_model, h.cpu_model);
  if (b.cpu_count && h.cpu_count && b.cpu_count != h.cpu_count)
    check(Aspect::kCpuCount, std::to_string(b.cpu_count), std::to_string(h.cpu_count));
  check(Aspect::kKernel, b.kernel, h.kernel);
  check(Aspect::kGoVersion, b.go_version, h.go_version);
  check(Aspect::kGateVersion, b.gate_version, h.gate_version);
  check(Aspect::kAttachMode, b.attach_mode, h.attach_mode);
  if (!b.config_hash.empty() && !h.config_hash.empty() && b.config_hash != h.config_hash)
    out.push_back({Finding::Kind::kConfigDiffers, Aspect::kNone, "", "", b.config_hash, h.config_hash});
}

void function_findings(const FunctionComparison& fc, const FunctionInfo* base_info, const FunctionInfo* head_info,
                       size_t base_runs, size_t head_runs, const CompareOptions& o, std::vector<Finding>& out) {
  if (base_info && head_info) {
    auto check = [&](Finding::Aspect what, const std::string& bv, const std::string& hv) {
      if (!bv.empty() && !hv.empty() && bv != hv) out.push_back({Finding::Kind::kProbeDiffers, what, fc.name, "", bv, hv});
    };
    check(Finding::Aspect::kEntryPlacement, base_info->entry_placement, head_info->entry_placement);
    check(Finding::Aspect::kEntryHandling, base_info->entry_cost_class, head_info->entry_cost_class);
  }
  for (const auto& [side, c, runs] : {std::tuple{"base", fc.base_counters, base_runs},
                                      std::tuple{"head", fc.head_counters, head_runs}}) {
    const double seen = static_cast<double>(c.calls + c.dropped);
    if (c.dropped > 0 && c.dropped > o.max_lost_fraction * seen) {
      Finding f{Finding::Kind::kDroppedCalls, {}, fc.name, side};
      f.count = c.dropped;
      f.total = c.calls + c.dropped;
      out.push_back(std::move(f));
    }
    // A function still running when the run ends (a server loop) leaves one open entry per run:
    // normal. Many more mean calls that never return or returns we never saw.
    const uint64_t unmatched = c.unmatched_entries + c.unmatched_returns;
    if (unmatched > 2 * runs && unmatched > o.max_lost_fraction * static_cast<double>(c.calls + unmatched)) {
      Finding f{Finding::Kind::kUnmatchedCalls, {}, fc.name, side};
      f.count = unmatched;
      f.total = c.calls;
      out.push_back(std::move(f));
    }
  }
}

}  // namespace gate::stats
