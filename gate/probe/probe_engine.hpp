// ProbeEngine: the only part of gate that talks to the kernel. Loads the BPF program, attaches
// the entry/RET uprobes of one binary, tracks the workload's process tree and reads the
// per-function latency statistics after each run.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gate::probe {

// One uprobe: a file offset in the binary and the cookie the BPF program receives
// (GATE_COOKIE(function id, site kind, jump condition), bpf/gate_shared.h).
struct SiteSpec {
  uint64_t file_offset = 0;
  uint64_t cookie = 0;
};

enum class AttachMode { kAuto, kMulti, kPerProbe };
const char* to_string(AttachMode m);  // "auto", "uprobe_multi", "perf_event"

struct EngineOptions {
  AttachMode mode = AttachMode::kAuto;
  // Capacity of the in-flight call map (LRU). Every traced frame on every goroutine's stack at
  // once needs a slot: 40 goroutines 3,000 recursive frames deep need 120k. An evicted entry
  // shows up as an unmatched return, never as a wrong latency. ~40 bytes of kernel memory each.
  uint32_t max_in_flight = 262144;
  uint32_t g_stack_hi_offset = 8;  // offsetof(runtime.g, stack.hi)
  // Progress lines for slow work ("attached 400/1000 probes"); may be empty.
  std::function<void(const std::string&)> progress;
};

// Totals of one function since the last collect (summed over CPUs).
struct FunctionCounters {
  uint64_t calls = 0, sum_ns = 0, min_ns = 0, max_ns = 0;
  std::vector<std::pair<uint32_t, uint64_t>> buckets;  // sparse, sorted by bucket index
  uint64_t unmatched_returns = 0;
  uint64_t abandoned_entries = 0;  // replaced by a newer entry of the same frame
  uint64_t open_entries = 0;       // still in flight when collected (never returned)
  uint64_t diverted_entries = 0;
  uint64_t dropped = 0;
};

class ProbeEngine {
 public:
  // Loads the BPF program and attaches every site on `binary_path`. Throws gate::Error: no
  // permission (names the missing capability), kernel without uprobes/BTF, bad offsets.
  ProbeEngine(const std::string& binary_path, uint32_t function_count,
              const std::vector<SiteSpec>& sites, const EngineOptions& options);
  ~ProbeEngine();  // detaches everything (links are fds: the kernel also drops them if we die)
  ProbeEngine(const ProbeEngine&) = delete;
  ProbeEngine& operator=(const ProbeEngine&) = delete;

  AttachMode attach_mode() const;   // kMulti or kPerProbe: what was actually used
  double attach_seconds() const;    // wall time of the attach step
  size_t site_count() const;

  // Counts calls made by pid and every process it forks from now on.
  void track(pid_t pid);
  // Forgets every tracked process.
  void untrack_all();
  // Reads and zeroes the statistics of every function; in-flight entries left in the map are
  // counted as open_entries and removed. Call it after the workload's processes have exited.
  std::vector<FunctionCounters> collect_and_reset();

  // Detaches now (also done by the destructor); returns the wall time it took.
  double detach();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether this process may load BPF programs; "" when yes, else a sentence naming the missing
// capabilities and the fix. Does not load anything.
std::string missing_bpf_privileges();

}  // namespace gate::probe
