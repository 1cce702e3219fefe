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

#include "probe/pid_namespace.hpp"

namespace gate::probe {

// One uprobe: a file offset in the binary and the cookie the BPF program receives
// (GATE_COOKIE(function id, site kind, jump condition), bpf/gate_shared.h).
struct SiteSpec {
  uint64_t file_offset = 0;
  uint64_t cookie = 0;
  // Native functions (plan/native_plan.hpp): the file the offset is in when it is not the engine's
  // binary (a shared library, attached by path: its inode is probed before any process maps it),
  // and whether the site is a uretprobe on the function's entry rather than a plain uprobe.
  std::string path;
  bool uretprobe = false;
};

enum class AttachMode { kAuto, kMulti, kPerProbe };

// What one probe hit costs on this host, by site kind (calibration, gate/truetime), in ns. The BPF
// program subtracts them to turn a call's window into its true time: its own entry and return
// hits' in-window part (bias) and the whole cost (full) of every hit of its traced descendants on
// the same goroutine. All zero: raw windows (what calibration itself measures with).
struct ProbeCosts {
  double entry_jcc_full_ns = 0;    // emulated stack-check jump (also each morestack restart)
  double entry_first_full_ns = 0;  // single-stepped first instruction
  double return_full_ns = 0;       // single-stepped RET
  double bias_jcc_ns = 0;          // in-window part of a call entered on the jump (entry + return)
  double bias_first_ns = 0;        // same for a call entered on its first instruction
  bool any() const { return entry_jcc_full_ns + entry_first_full_ns + return_full_ns + bias_jcc_ns + bias_first_ns > 0; }
};
const char* to_string(AttachMode m);  // "auto", "uprobe_multi", "perf_event"

// Latency by argument (plan/buckets.hpp): each call of function_id is also recorded into series
// first_id + (how many bounds are <= the argument's value), read at the entry from one register.
struct ArgBucketSpec {
  enum class Read : uint8_t {
    kSigned = 1,    // the register, sign-extended from `size` bytes (ints; a length)
    kUnsigned = 2,  // zero-extended (uints, bool)
    kNil = 3,       // 0 when the register is 0, else 1 (pointer nil-ness)
    kDeref = 4,     // the 8 bytes at register + offset, 0 when the register is 0 (len of map, chan)
  };
  uint32_t function_id = 0, first_id = 0;
  Read read = Read::kSigned;
  uint8_t abi_register = 0;  // Go ABI integer register: 0 = RAX, RBX, RCX, RDI, RSI, R8, R9, R10, 8 = R11
  uint8_t size = 8;
  uint32_t offset = 0;
  std::vector<int64_t> bounds;  // strictly increasing, at most GATE_ARG_MAX_BOUNDS (bpf/gate_shared.h)
};

struct EngineOptions {
  // kAuto: uprobe_multi when a feature probe says this kernel has it, else per-probe links.
  AttachMode mode = AttachMode::kAuto;
  // Capacity of the in-flight call map (LRU). Every traced frame on every goroutine's stack at
  // once needs a slot: 40 goroutines 3,000 recursive frames deep need 120k. An evicted entry
  // shows up as an unmatched return, never as a wrong latency. ~40 bytes of kernel memory each.
  uint32_t max_in_flight = 262144;
  uint32_t g_stack_hi_offset = 8;  // offsetof(runtime.g, stack.hi)
  // Capacity of the per-goroutine accumulators (LRU): goroutines that have called a traced
  // function at once. An evicted one makes its in-flight calls "uncompensated" (counted).
  uint32_t max_goroutines = 65536;
  ProbeCosts costs;
  // false: no per-goroutine accounting in the BPF program (raw windows; no descendants, self time
  // nor compensation): what a probe cost before true time (bench_probe compares both).
  bool true_time = true;
  // Subtract from each call the time other processes had its thread's CPU while the thread was
  // preempted (runnable, off the CPU) inside the call, seen by a sched_switch program; sleeping,
  // blocking and the workload's own threads' time stay in. Off by default: the program runs on
  // every context switch of the machine.
  bool exclude_preemption = false;
  // Ceiling on the maps' worst-case kernel memory (probe/kernel_memory.hpp); a configuration
  // above it, or above what the cgroup leaves, fails before anything is loaded.
  uint64_t max_kernel_memory = uint64_t{512} << 20;
  // Functions whose calls are also recorded by argument bucket (empty: none).
  std::vector<ArgBucketSpec> arg_buckets;
  // Progress lines for slow work ("attached 400/1000 probes"); may be empty.
  std::function<void(const std::string&)> progress;
};

// Totals of one function since the last collect (summed over CPUs). Times are compensated
// (ProbeCosts); raw_* are the uncompensated windows.
struct FunctionCounters {
  uint64_t calls = 0, sum_ns = 0, min_ns = 0, max_ns = 0;
  std::vector<std::pair<uint32_t, uint64_t>> buckets;  // sparse, sorted by bucket index
  uint64_t raw_sum_ns = 0, raw_min_ns = 0, raw_max_ns = 0;
  uint64_t descendants = 0;  // traced calls returned inside its calls' windows, same goroutine
  uint64_t self_sum_ns = 0;
  std::vector<std::pair<uint32_t, uint64_t>> self_buckets;  // self-time histogram, sparse
  uint64_t clamped = 0;        // compensation larger than the window: recorded as 0
  uint64_t uncompensated = 0;  // goroutine accumulator evicted mid-call: bias-only compensation
  uint64_t sum_start_us = 0;   // its calls' moments after set_run_start, summed in 1024 ns units
  uint64_t sum_start_ms2 = 0;  // ... squared, in 2^20 ns (~1 ms) units
  struct Caller {
    uint32_t caller = 0;  // function id of the nearest traced caller on the same goroutine
    uint64_t calls = 0, sum_ns = 0;  // this function's calls and compensated time under it
  };
  std::vector<Caller> callers;  // sorted by caller id
  uint64_t unmatched_returns = 0;
  uint64_t abandoned_entries = 0;  // replaced by a newer entry of the same frame
  uint64_t open_entries = 0;       // still in flight when collected (never returned)
  uint64_t diverted_entries = 0;
  uint64_t dropped = 0;
};

// Counts of the whole engine (no function's) since the last collect.
struct EngineCounters {
  uint64_t lost_edges = 0;       // caller pairs not counted (the call-edge map was full)
  uint64_t straddled_calls = 0;  // calls dropped because they entered before the current time
                                 // slice (set_slice_start)
  uint64_t preempted_calls = 0;       // calls with preemption taken out
  uint64_t thread_changed_calls = 0;  // returned on another thread, kept whole
};

// What the kernel holds for one engine now, by the kernel's own accounting (the memlock figure
// of /proc/self/fdinfo, which follows the entries present in hash maps on kernels >= 6.4).
struct KernelMemory {
  uint64_t total_bytes = 0;      // every map of the engine, the in-flight pairing map included
  uint64_t histogram_bytes = 0;  // statistics records and histogram groups
  uint64_t functions = 0;        // functions with a statistics record: called since the last collect
  uint64_t groups = 0;           // histogram groups of 16 buckets held
};

class ProbeEngine {
 public:
  // Checks that the maps fit (kernel_memory.hpp), decides the attach mode once, loads the BPF
  // program and attaches every site on `binary_path`. Throws gate::Error: maps too large (exit
  // 2), no permission (names the missing capability), kernel without uprobes/BTF, bad offsets.
  ProbeEngine(const std::string& binary_path, uint32_t function_count,
              const std::vector<SiteSpec>& sites, const EngineOptions& options);
  ~ProbeEngine();  // detaches everything (links are fds: the kernel also drops them if we die)
  ProbeEngine(const ProbeEngine&) = delete;
  ProbeEngine& operator=(const ProbeEngine&) = delete;

  AttachMode attach_mode() const;   // kMulti or kPerProbe: what was actually used
  const std::string& attach_mode_reason() const;  // why: requested, or what the feature probe said
  double attach_seconds() const;    // wall time of the attach step
  size_t site_count() const;

  // Counts calls made by pid (a PID as gate's own PID namespace numbers it) and every process it
  // forks from its exec on: a process held before its exec (runner::Child) is followed from its
  // first instruction; one tracked after its exec, from its first probe hit (its children forked
  // before that are not followed).
  void track(pid_t pid);
  // Forgets every tracked process.
  void untrack_all();
  // How many tracked processes the BPF side has found so far (at their exec or first probe hit),
  // over the engine's life: a run during which it did not grow never followed its workload.
  uint64_t followed() const;
  const PidNamespace& pid_namespace() const;
  // Reads and deletes the statistics of every function (functions never called have none);
  // in-flight entries left in the map are counted as open_entries and removed. Call it after the
  // workload's processes have exited. Throws gate::Error (exit 3) when calls could not be counted
  // at all because the kernel had no memory for a function's record.
  std::vector<FunctionCounters> collect_and_reset();
  // Time slicing: the statistics so far, read and deleted like collect_and_reset, while the
  // workload is stopped between two slices. Calls in flight stay in flight (their returns, in a
  // later slice, are then counted as straddled), and so do the goroutines' accumulators.
  std::vector<FunctionCounters> collect_slice();
  // Time slicing: calls entered before `monotonic_ns` (CLOCK_MONOTONIC, what bpf_ktime_get_ns
  // reads) are dropped at their return and counted in straddled_calls; 0 turns it off. Set it
  // while the workload is stopped, just before letting it run again.
  void set_slice_start(uint64_t monotonic_ns);
  // The origin of the calls' moments in the run (FunctionCounters::sum_start_us): set it as the
  // run (or slice) starts. 0: not kept.
  void set_run_start(uint64_t monotonic_ns);
  // The engine-wide counts read (and reset) by the last collect_and_reset or collect_slice.
  const EngineCounters& engine_counters() const;

  // Native functions: how often the workload's ld.so mapped each watched library (its DT_INIT ran)
  // since the last call, indexed by the GATE_SITE_LIBRARY_LOADED cookie's library number.
  std::vector<uint64_t> take_library_loads();

  KernelMemory kernel_memory() const;
  // Ids of the functions that hold kernel memory now (called since the last collect), sorted.
  std::vector<uint32_t> functions_in_kernel() const;

  // Detaches now (also done by the destructor); returns the wall time it took.
  double detach();

 private:
  std::vector<FunctionCounters> collect(bool end_of_run);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The fix when a seccomp filter refuses bpf() or perf_event_open though the capabilities are held
// (gate doctor's seccomp line and a refused load say the same).
inline constexpr const char* kSeccompRefusesBpf =
    "this process's seccomp filter refuses bpf() or perf_event_open (/proc/self/status Seccomp: 2), as "
    "podman's and Docker's default profiles do without CAP_SYS_ADMIN in some versions: run the container "
    "with --security-opt seccomp=unconfined (or a profile allowing both), or add --cap-add SYS_ADMIN; "
    "GitLab [runners.docker] security_opt = [\"seccomp:unconfined\"]; Kubernetes "
    "securityContext.seccompProfile.type: Unconfined (docs/ci.md, Containers)";

// Whether this process may load BPF programs; "" when yes, else a sentence naming the missing
// capabilities and the fix. Does not load anything.
std::string missing_bpf_privileges();
// The same sentence from the capabilities held: for root or in a container (another PID namespace
// than the host's), the container engine's --cap-add line; else sudo or setcap.
std::string bpf_privileges_fix(bool bpf, bool perfmon, bool sys_admin, bool root, bool container);

// The feature probe the engine decides its attach mode with (gate doctor shows it): 0 when this
// kernel has uprobe_multi links, else the errno that says no (EPERM/EACCES: BPF not allowed).
int uprobe_multi_errno();

}  // namespace gate::probe
