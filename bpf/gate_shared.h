/* Plain C types and helpers shared by bpf/gate.bpf.c and the C++ loader (gate/probe): the
 * per-function statistics record, the sparse histogram groups, the attach cookie layout and the
 * histogram bucketing. */
#ifndef GATE_SHARED_H
#define GATE_SHARED_H

#ifdef __bpf__
/* the BPF side gets __u64 etc. from linux/types.h via its own includes */
#else
#include <linux/types.h>
#endif

/* Log-linear histogram of nanoseconds: exact 1 ns buckets below 64 ns, then 32 sub-buckets per
 * power of two, so a bucket is at most 1/32 (3.1%) of its lower bound wide. Values at or above
 * 2^42 ns (~73 minutes) land in the last bucket. */
#define GATE_HIST_SUB_BITS 5
#define GATE_HIST_SUB (1u << GATE_HIST_SUB_BITS)
#define GATE_HIST_MAX_EXP 41
#define GATE_HIST_BUCKETS ((GATE_HIST_MAX_EXP - GATE_HIST_SUB_BITS + 2) * GATE_HIST_SUB) /* 1216 */

/* floor(log2(v)) for v > 0, without clz (BPF has no such instruction). */
static inline __u32 gate_ilog2(__u64 v) {
  __u32 r = 0;
  if (v >> 32) { v >>= 32; r += 32; }
  if (v >> 16) { v >>= 16; r += 16; }
  if (v >> 8) { v >>= 8; r += 8; }
  if (v >> 4) { v >>= 4; r += 4; }
  if (v >> 2) { v >>= 2; r += 2; }
  if (v >> 1) { r += 1; }
  return r;
}

static inline __u32 gate_hist_bucket(__u64 ns) {
  if (ns < 2 * GATE_HIST_SUB) return (__u32)ns;
  __u32 e = gate_ilog2(ns);
  if (e > GATE_HIST_MAX_EXP) return GATE_HIST_BUCKETS - 1;
  __u32 sub = (__u32)(ns >> (e - GATE_HIST_SUB_BITS)) & (GATE_HIST_SUB - 1);
  return (e - GATE_HIST_SUB_BITS + 1) * GATE_HIST_SUB + sub;
}

/* Lower bound (inclusive) and width of a bucket, in ns. */
static inline __u64 gate_hist_lower(__u32 b) {
  if (b < 2 * GATE_HIST_SUB) return b;
  __u32 e = b / GATE_HIST_SUB + GATE_HIST_SUB_BITS - 1;
  __u64 sub = b % GATE_HIST_SUB;
  return (GATE_HIST_SUB + sub) << (e - GATE_HIST_SUB_BITS);
}
static inline __u64 gate_hist_width(__u32 b) {
  if (b < 2 * GATE_HIST_SUB) return 1;
  __u32 e = b / GATE_HIST_SUB + GATE_HIST_SUB_BITS - 1;
  return (__u64)1 << (e - GATE_HIST_SUB_BITS);
}

/* Attach cookie: low 32 bits function id (index into func_stats), then the site kind. */
enum gate_site_kind {
  GATE_SITE_ENTRY_JCC = 1, /* the stack-check jump: counts only when the jump is NOT taken */
  GATE_SITE_ENTRY = 2,     /* first instruction of a function without stack check */
  GATE_SITE_RETURN = 3,    /* a RET instruction */
  /* Native (C, C++) functions: frames on the thread's system stack, which never moves. Keyed by
   * (thread, stack pointer at the entry) instead of (goroutine, depth); no calibrated cost (raw). */
  GATE_SITE_NATIVE_ENTRY = 4,     /* first instruction: [SP] is the return address */
  GATE_SITE_NATIVE_URETPROBE = 5, /* uretprobe (return address replaced): SP = entry SP + 8 */
  GATE_SITE_NATIVE_RETURN = 6,    /* a RET instruction: SP = entry SP */
  /* A shared library's DT_INIT, which ld.so runs when it maps the library (at start or by
   * dlopen): counts library_loads[cond], no function. Tells "never mapped" from "never called". */
  GATE_SITE_LIBRARY_LOADED = 7,
};
#define GATE_MAX_WATCHED_LIBRARIES 16
/* The synthetic "goroutine" of a native frame: this bit above the thread id. Go g pointers are
 * user-space addresses (< 2^47), so no native key collides with a goroutine's. */
#define GATE_NATIVE_THREAD_TAG (1ULL << 63)
/* Condition of a GATE_SITE_ENTRY_JCC jump to morestack (x86 flags). */
enum gate_jcc_cond {
  GATE_JCC_BE = 1, /* jbe/jna: taken when CF or ZF */
  GATE_JCC_B = 2,  /* jb/jc: taken when CF */
  GATE_JCC_LS = 3, /* arm64 b.ls: taken when C==0 or Z==1 (static analysis only: gate attaches on x86-64) */
};
#define GATE_COOKIE(func, kind, cond) \
  (((__u64)(cond) << 40) | ((__u64)(kind) << 32) | (__u64)(__u32)(func))
/* Cookie flags, bits 48-55. COUNT_ONLY (entry sites): the call is counted (gate_func_stats.count)
 * and nothing else: no frame to pair, no clock read, no return probe. For functions whose time is
 * sampled (issue 39, `calls: entry`): an exact call count at the cost of the emulated jump alone. */
#define GATE_SITE_FLAG_COUNT_ONLY 0x1
#define GATE_COOKIE_FLAGS_SHIFT 48

/* Per-function statistics (value of the func_stats map; key = function id). One record shared by
 * every CPU, updated with atomic adds; created by the function's first entry or return in a run
 * and deleted when user space reads it, so kernel memory follows the functions actually called. */
struct gate_func_stats {
  __u64 count;             /* paired calls recorded in the histogram */
  __u64 sum_ns;
  __u64 min_ns;            /* starts at ~0 (see gate.bpf.c): meaningful when count > 0 */
  __u64 max_ns;
  __u64 unmatched_returns; /* a return with no recorded entry (call began before attach) */
  __u64 abandoned_entries; /* an entry replaced by a newer one of the same frame: the older call
                              never returned (panic unwound it, runtime.Goexit) */
  __u64 diverted_entries;  /* stack-check jumps taken to morestack: a restart, not a call */
  __u64 dropped;           /* calls lost: pairing map full, g's stack bounds unreadable, or no
                              kernel memory for a histogram group */
  /* True time (count/sum/min/max above and the first histogram are compensated: the call's
   * window minus its own in-window probe bias and the full calibrated cost of every probe hit of
   * its traced descendants on the same goroutine). The raw window is kept next to it. */
  __u64 raw_sum_ns;
  __u64 raw_min_ns;        /* starts at ~0 like min_ns */
  __u64 raw_max_ns;
  __u64 descendants;       /* traced calls that returned inside the windows of this function's
                              calls, on the same goroutine (sum over its calls) */
  __u64 self_sum_ns;       /* compensated time minus the direct traced children's */
  __u64 clamped;           /* calls whose compensation exceeded the window (counted as 0 ns) */
  __u64 uncompensated;     /* calls recorded raw minus bias only: the goroutine's accumulator was
                              evicted during the call (more goroutines than max_goroutines) */
  /* When in the run the recorded calls were made: sums over them of the entry's moment after
   * run_start_ns, in 1024 ns units and squared in 2^20 ns units (~1 ms: a 60 s run's square is
   * 3.3e9, so 5e9 calls fit). Mean and spread of the calls' moments: calls made in a burst (at
   * start-up) meet one state of the machine per run, which a longer run does not average. */
  __u64 sum_start_us;
  __u64 sum_start_ms2;
};

/* Probe cost model, indexed by enum gate_site_kind, in ns, from calibration on this host:
 * full_ns = what one hit of that kind adds to the time of any window around it (trap, handler,
 * emulation or single-step, back to user); bias_ns (entry kinds only) = the part of a call's own
 * entry hit and return hit that falls inside its own window (after the entry's clock read,
 * before the return's). All zero: raw times (calibration itself runs so). */
struct gate_probe_costs {
  __u64 full_ns[4];
  __u64 bias_ns[4];
};

/* Key and value of the goroutines map: what happened on one goroutine so far. */
struct gate_g_key {
  __u32 tgid;
  __u32 pad;
  __u64 g;
};
struct gate_g_state {
  __u64 epoch;    /* bpf_ktime at creation: tells a recreated (evicted) state from the old one */
  __u64 cost_ns;  /* calibrated cost of every probe hit on this goroutine */
  __u64 calls;    /* paired returns on this goroutine */
  __u64 child_ns; /* compensated time of finished calls at the current nesting level: rewound to
                     the entry's snapshot + the call's own time at each return, so that a
                     parent's difference holds only its direct children */
  __u32 cur_func; /* traced function in flight innermost on this goroutine, id + 1 (0: none) */
  __u32 pad;
};

/* Key and value of the call_edges map: a traced caller -> traced callee pair (same goroutine,
 * nearest traced ancestor) and the callee's calls and compensated time under that caller. */
struct gate_edge_key {
  __u32 caller;
  __u32 callee;
};
struct gate_edge {
  __u64 calls;
  __u64 sum_ns;
};

/* Value of the frames map: an in-flight call's entry time and the goroutine's state then. */
struct gate_frame {
  __u64 ts;
  __u64 epoch;
  __u64 cost_ns;
  __u64 calls;
  __u64 child_ns;
  __u8 entry_kind;
  __u8 bucket;  /* latency by argument: bucket index + 1 (series arg_buckets[func].first_id + index),
                   0 = none; packed beside entry_kind so that the frame needs no more bytes */
  __u16 pad;
  __u32 caller; /* the goroutine's cur_func at the entry: traced caller id + 1, 0 = none */
  /* Preemption excluded (exclude_preemption): the entering thread and its preempted time then. */
  __u64 preempted_ns;
  __u32 tid;
  __u32 pad2;
};

/* Value of the threads map (exclude_preemption): one thread of the workload, key = its tid. */
struct gate_thread {
  __u64 preempted_ns; /* time other processes had its CPU while it was runnable, since first seen */
  __u64 out_at;       /* bpf_ktime of its last switch-out while runnable; 0 = on a CPU or asleep */
  __u64 out_foreign;  /* its CPU's gate_cpu.foreign_ns at that switch-out */
  __u32 out_cpu;      /* that CPU */
  __u32 pad;
};

/* Value of the cpus map (exclude_preemption): one CPU, key = its number. Written only by the
 * sched_switch program running on that CPU. */
struct gate_cpu {
  __u64 foreign_ns;    /* time tasks of other processes ran on it, summed at each switch */
  __u64 foreign_since; /* bpf_ktime since which a task of another process runs on it; 0 = none */
};

/* Latency by argument: value of the arg_buckets map (key = function id). The entry reads one Go
 * ABI integer register, turns it into a value (enum gate_arg_read) and records the call also into
 * series first_id + (number of bounds <= value). */
#define GATE_ARG_MAX_BOUNDS 8
enum gate_arg_read {
  GATE_ARG_SIGNED = 1,   /* the register sign-extended from size bytes */
  GATE_ARG_UNSIGNED = 2, /* zero-extended */
  GATE_ARG_NIL = 3,      /* register != 0 */
  GATE_ARG_DEREF = 4,    /* 8 bytes at register + offset; 0 when the register is 0 */
};
struct gate_arg_spec {
  __u32 first_id;
  __u8 read;   /* enum gate_arg_read */
  __u8 reg;    /* Go ABI integer register: 0 RAX, 1 RBX, 2 RCX, 3 RDI, 4 RSI, 5 R8, 6 R9, 7 R10, 8 R11 */
  __u8 size;   /* bytes of the value in the register: 1, 2, 4 or 8 */
  __u8 nbounds;
  __u32 offset;
  __u32 pad;
  __s64 bounds[GATE_ARG_MAX_BOUNDS];
};

/* Which histogram a group belongs to: group index + GATE_HIST_GROUPS * which. */
enum gate_hist_which {
  GATE_HIST_TIME = 0, /* compensated time */
  GATE_HIST_SELF = 1, /* self time minus time: signed counts (two's complement), see record() */
  GATE_HIST_KINDS = 2,
};

/* The histogram is stored sparsely, in groups of 16 adjacent buckets (half a power of two): a
 * function whose calls span k powers of two holds about 2k groups, never all 76. */
#define GATE_HIST_GROUP_BITS 4
#define GATE_HIST_GROUP (1u << GATE_HIST_GROUP_BITS)
#define GATE_HIST_GROUPS (GATE_HIST_BUCKETS / GATE_HIST_GROUP) /* 76 */

/* Key and value of the func_hist map: counts of buckets [g * 16, g * 16 + 16) with
 * g = group % GATE_HIST_GROUPS, of histogram group / GATE_HIST_GROUPS (enum gate_hist_which). */
struct gate_hist_key {
  __u32 func;
  __u32 group;
};
struct gate_hist_group {
  __u64 counts[GATE_HIST_GROUP];
};

/* Key of an in-flight call: the goroutine (g pointer) and the frame's distance from the top of
 * the goroutine stack, which survives the runtime copying the stack to grow it. */
struct gate_frame_key {
  __u32 tgid;
  __u32 func;
  __u64 g;
  __u64 depth; /* g.stack.hi - SP at the entry probe == at the RET probe */
};

#endif /* GATE_SHARED_H */
