// Worst-case kernel memory of the probe maps and the check that it fits, before anything loads.
#include "probe/kernel_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "common/format.hpp"

extern "C" {
#include "gate_shared.h"
}

namespace gate::probe {

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kElemHeader = 48;  // sizeof(struct htab_elem) on 64-bit
constexpr uint64_t kListNode = 8;     // LLIST_NODE_SZ: per element without preallocation
constexpr uint64_t kBucket = 16;      // sizeof(struct bucket)

uint64_t round8(uint64_t v) { return (v + 7) / 8 * 8; }
uint64_t pow2_at_least(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}
uint64_t element(uint64_t key, uint64_t value) { return kElemHeader + round8(key) + round8(value); }


std::optional<uint64_t> read_number(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  if (!(in >> s) || s == "max") return std::nullopt;
  try {
    return std::stoull(s);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

uint32_t max_call_edges(uint32_t functions) {
  return static_cast<uint32_t>(std::clamp<uint64_t>(uint64_t{functions} * 16, 1024, uint64_t{1} << 20));
}

MapPlan plan_maps(uint32_t functions, uint32_t max_in_flight, uint32_t max_goroutines) {
  MapPlan p;
  p.functions = std::max<uint32_t>(functions, 1);
  p.max_in_flight = std::max<uint32_t>(max_in_flight, 1024);  // the engine's floors
  p.max_goroutines = std::max<uint32_t>(max_goroutines, 1024);
  const uint64_t groups = uint64_t{p.functions} * GATE_HIST_GROUPS * GATE_HIST_KINDS;
  // The pairing map and the goroutines' accumulators: LRU maps, preallocated at creation.
  p.in_flight_bytes = uint64_t{p.max_in_flight} * element(sizeof(gate_frame_key), sizeof(gate_frame)) +
                      pow2_at_least(p.max_in_flight) * kBucket +
                      uint64_t{p.max_goroutines} * element(sizeof(gate_g_key), sizeof(gate_g_state)) +
                      pow2_at_least(p.max_goroutines) * kBucket;
  p.reserved_bytes = (pow2_at_least(p.functions) + pow2_at_least(groups)) * kBucket;
  p.record_bytes = element(sizeof(uint32_t), sizeof(gate_func_stats)) + kListNode;
  p.group_bytes = element(sizeof(gate_hist_key), sizeof(gate_hist_group)) + kListNode;
  p.per_function_max = p.record_bytes + GATE_HIST_KINDS * GATE_HIST_GROUPS * p.group_bytes;
  const uint64_t edges = max_call_edges(p.functions);
  p.edge_bytes = edges * (element(sizeof(gate_edge_key), sizeof(gate_edge)) + kListNode) + pow2_at_least(edges) * kBucket;
  p.worst_case_bytes =
      p.in_flight_bytes + p.reserved_bytes + p.edge_bytes + uint64_t{p.functions} * p.per_function_max;
  return p;
}

std::optional<CgroupRoom> cgroup_memory_room() {
  std::ifstream in("/proc/self/cgroup");
  std::string line, rel;
  while (std::getline(in, line))
    if (line.rfind("0::", 0) == 0) rel = line.substr(3);
  if (rel.empty()) return std::nullopt;  // cgroup v1 only: not checked
  std::optional<CgroupRoom> best;
  for (fs::path dir = fs::path("/sys/fs/cgroup") / fs::path(rel).relative_path();; dir = dir.parent_path()) {
    const auto max = read_number(dir / "memory.max");
    const auto cur = read_number(dir / "memory.current");
    if (max && cur) {
      const uint64_t room = *max > *cur ? *max - *cur : 0;
      if (!best || room < best->bytes) best = CgroupRoom{room, (dir / "memory.max").string()};
    }
    if (dir == "/sys/fs/cgroup" || !dir.has_parent_path() || dir == dir.parent_path()) break;
  }
  return best;
}

void check_maps_fit(const MapPlan& p, uint64_t limit_bytes, const std::optional<CgroupRoom>& room) {
  const bool over_limit = p.worst_case_bytes > limit_bytes;
  const bool over_cgroup = room && p.worst_case_bytes > room->bytes;
  if (!over_limit && !over_cgroup) return;
  const std::string need =
      "need up to " + mib(p.worst_case_bytes) + " (" + std::to_string(p.functions) + " functions x " +
      std::to_string(p.per_function_max / 1024) + " KiB if every histogram bucket is used, + " +
      mib(p.in_flight_bytes) + " for max_in_flight " + std::to_string(p.max_in_flight) + ", + " +
      mib(p.reserved_bytes) + " of hash tables)";
  const std::string limit = over_limit ? "gate's limit of " + mib(limit_bytes) + " per process"
                                       : mib(room->bytes) + " left by the cgroup (" + room->limit_file + ")";
  throw Error::make("BPF maps", need + ", more than " + limit,
                    "declare fewer functions (narrow the globs under functions: in gate.yaml; `gate functions "
                    "BINARY --match GLOB` counts them), or lower max_in_flight" +
                        std::string(over_cgroup && !over_limit ? ", or raise the cgroup's memory.max" : ""),
                    ExitCode::kUsage);
}

}  // namespace gate::probe
