// Kernel memory of the probe maps: what a configuration can take at most (computed before
// anything is loaded, so that a config that would not fit fails before the runs) and the check.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gate::probe {

// Sizes follow the kernel's own accounting of hash maps (kernel/bpf/hashtab.c, what bpftool and
// /proc/PID/fdinfo report as memlock): an element is a 48-byte header plus key and value rounded
// to 8 bytes (+8 for the allocator's list node when not preallocated); a table reserves 16 bytes
// per bucket, buckets = max_entries rounded up to a power of two. None of it depends on the CPU
// count except a few locks (32 bytes per CPU per map) and allocator caches (< 40 KiB per CPU).
struct MapPlan {
  uint32_t functions = 0;
  uint32_t max_in_flight = 0;
  uint32_t max_goroutines = 0;
  uint64_t in_flight_bytes = 0;     // pairing map and goroutine accumulators: LRUs, preallocated
  uint64_t reserved_bytes = 0;      // bucket arrays of the statistics and histogram maps
  uint64_t record_bytes = 0;        // statistics record of one called function
  uint64_t group_bytes = 0;         // one group of 16 histogram buckets of one called function
  uint64_t edge_bytes = 0;          // caller -> callee map, every slot used (max_call_edges)
  uint64_t per_function_max = 0;    // record + every group of its time and self-time histograms
  uint64_t worst_case_bytes = 0;    // in-flight + reserved + edges + functions x per_function_max
};
// Capacity of the caller -> callee map: 16 traced callers per traced function, within [1024, 2^20].
uint32_t max_call_edges(uint32_t functions);
MapPlan plan_maps(uint32_t functions, uint32_t max_in_flight, uint32_t max_goroutines = 65536);

// Memory left to this process by its cgroup (v2 memory.max - memory.current, the tightest level
// on the way up), and the file that sets it; nullopt when no level sets a limit.
struct CgroupRoom {
  uint64_t bytes = 0;
  std::string limit_file;
};
std::optional<CgroupRoom> cgroup_memory_room();

// Throws gate::Error (exit 2) naming the size, the limit and the fix when the worst case exceeds
// `limit_bytes` or the cgroup's room.
void check_maps_fit(const MapPlan& plan, uint64_t limit_bytes, const std::optional<CgroupRoom>& room);

}  // namespace gate::probe
