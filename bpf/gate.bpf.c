/* Kernel side of gate: uprobes on the entry (stack-check jump or first instruction) and on every
 * RET of traced Go functions pair entries with returns per goroutine frame and histogram the
 * latency in maps shared by all CPUs. No per-call event reaches user space. */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "gate_shared.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load (read-only afterwards). */
const volatile __u32 g_stack_hi_offset = 8; /* offsetof(runtime.g, stack.hi): g.stack is field 0 */
const volatile struct gate_probe_costs costs = {}; /* calibrated on this host; zero: raw times */
/* 0: no per-goroutine accounting at all (raw windows only, no descendants nor self time): the
 * probe's cost before true time, for --raw-times and for bench_probe's comparison. */
const volatile __u8 true_time = 1;
/* 1: subtract from each call the time other processes had its thread's CPU while the thread was
 * runnable but switched out (preempted) during the call, seen by the sched_switch program below.
 * Time the workload's own threads had it stays in: that contention is the program's own doing,
 * and a change that adds it is a slowdown gate must see. */
const volatile __u8 exclude_preemption = 0;
/* 1: some function has bucket_by (the arg_buckets map is filled); 0 spares every entry the lookup. */
const volatile __u8 arg_buckets_on = 0;

/* x86 EFLAGS bits read at the stack-check jump. */
#define X86_CF 0x001
#define X86_ZF 0x040

/* gate's PID namespace (the device and inode of /proc/self/ns/pid, set before load): user space
 * knows the workload's PIDs only as this namespace numbers them, which in a container or under
 * `unshare --pid` is not how bpf_get_current_pid_tgid and task->tgid (the initial namespace's)
 * number them. */
const volatile __u64 pidns_dev = 0;
const volatile __u64 pidns_ino = 0;

/* key: tgid of a process in the workload's tree, as the initial PID namespace numbers it; value:
 * unused (1). Filled from `pending` when the workload's first process execs (or first hits a
 * probe); children are added on fork, so only the workload's calls count even when other
 * processes run the same binary (uprobes are per inode, not per process). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 8192);
  __type(key, __u32);
  __type(value, __u8);
} tracked SEC(".maps");

/* key: a process gate started, by its PID in gate's namespace (pidns_dev/ino); value: unused (1).
 * Written by user space while the process is held before its exec; its exec (gate_exec), or its
 * first probe hit when it was tracked after its exec, moves it to `tracked` under the initial
 * namespace's tgid, read in its own context by bpf_get_ns_current_pid_tgid. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 256);
  __type(key, __u32);
  __type(value, __u8);
} pending SEC(".maps");

/* key: an in-flight call (tgid, function, goroutine, frame depth); value: entry time in ns and
 * the goroutine's state at that moment (struct gate_frame).
 * LRU so that entries which never return (panic, Goexit) cannot fill it; dynamically sized from
 * user space. */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 65536);
  __type(key, struct gate_frame_key);
  __type(value, struct gate_frame);
} frames SEC(".maps");

/* key: a goroutine (tgid, g); value: the probe cost, paired calls and finished-children time
 * accumulated on it (struct gate_g_state). LRU, sized from user space: an evicted state is
 * recreated with a new epoch and the calls in flight on it are counted as uncompensated. g structs
 * are reused after a goroutine exits, which is harmless: only differences within a call matter. */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 65536);
  __type(key, struct gate_g_key);
  __type(value, struct gate_g_state);
} goroutines SEC(".maps");

/* Kernel memory follows the functions actually called, not the functions declared nor the CPUs:
 * the two maps below are hash maps without preallocation whose entries a function's first call
 * creates and user space deletes when it reads them after a run. Their values are shared by all
 * CPUs and updated with atomic adds; the per-call cost of that sharing is measured by
 * tests/bench/bench_scale (goroutines on every CPU calling the same functions at once). */

/* key: function id (attach cookie low 32 bits); value: its counters (struct gate_func_stats).
 * max_entries is set from user space to the number of traced functions. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gate_func_stats);
} func_stats SEC(".maps");

/* key: (function id, group of 16 adjacent histogram buckets of its time or self-time histogram);
 * value: the 16 counts. Only groups that some call landed in exist. max_entries (set from user
 * space) is functions x 76 groups x 2 histograms, so the map can never be full. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 1);
  __type(key, struct gate_hist_key);
  __type(value, struct gate_hist_group);
} func_hist SEC(".maps");

/* key: (traced caller, traced callee) function ids; value: calls and compensated time of the
 * callee under that caller (struct gate_edge). Created by the first such call; max_entries set
 * from user space; a full map loses edges (counted in lost_edges), never calls. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 1);
  __type(key, struct gate_edge_key);
  __type(value, struct gate_edge);
} call_edges SEC(".maps");

/* key: function id declared with bucket_by; value: which argument and bounds (struct
 * gate_arg_spec). Filled by user space before attach; max_entries set to their number. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gate_arg_spec);
} arg_buckets SEC(".maps");

/* key: tid of a thread of the workload that was ever preempted (exclude_preemption only); value:
 * its preempted time so far (struct gate_thread). LRU, sized from user space: an evicted thread
 * restarts at 0, which a call in flight on it sees as a smaller total than at its entry and then
 * excludes nothing (counted in thread_changed_calls). */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 16384);
  __type(key, __u32);
  __type(value, struct gate_thread);
} threads SEC(".maps");

/* key: CPU number; value: how long tasks of other processes have run on it (struct gate_cpu).
 * exclude_preemption only; max_entries set from user space to the possible CPUs. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gate_cpu);
} cpus SEC(".maps");

/* Initial values of new entries (never written). min_ns starts high so that the first call's
 * atomic minimum replaces it without a "first call" test that would race between CPUs. */
struct gate_func_stats new_stats = {.min_ns = ~0ULL, .raw_min_ns = ~0ULL};
struct gate_hist_group new_group = {};

/* Calls that could not be counted at all because no statistics record could be created (kernel
 * memory exhausted); read by user space next to the per-function counters. */
__u64 lost_no_record = 0;
/* Caller -> callee pairs not counted because call_edges was full or memory ran out. */
__u64 lost_edges = 0;
/* Loads (ld.so running DT_INIT) of each watched shared library by the workload, indexed by the
 * GATE_SITE_LIBRARY_LOADED cookie's cond byte. */
__u64 library_loads[GATE_MAX_WATCHED_LIBRARIES] = {};
/* Time slicing (gate ab --slice-ms): bpf_ktime of the moment user space let the workload run
 * again after a stop, written before each SIGCONT; 0 = not sliced. A call entered before it holds
 * a stop (and the other side's slice) in its window: it is dropped and counted in straddled_calls,
 * never recorded. */
__u64 slice_start_ns = 0;
__u64 straddled_calls = 0;
/* bpf_ktime of the run's (or slice's) start, written by user space before the workload runs: the
 * origin of each call's moment in the run (gate_func_stats.sum_start_us). 0: moments not kept. */
__u64 run_start_ns = 0;
/* Preemption excluded: calls whose time had some preemption taken out, and calls that returned
 * on another thread than they entered on (a goroutine moved by Go's scheduler) whose preemption
 * could not be told and stays in their time. */
__u64 preempted_calls = 0;
__u64 thread_changed_calls = 0;
struct gate_edge new_edge = {};
/* 1 while `pending` may hold a process (set by user space with it, cleared by untrack_all): only
 * then does a hit from an untracked process pay the namespace lookup. */
__u32 pending_on = 0;
/* Processes moved from `pending` to `tracked` (at their exec, or at a probe hit): user space reads
 * it to tell "the workload was never followed" from "it called nothing". */
__u64 followed = 0;

/* Minimal task_struct for CO-RE: field offsets are relocated against the kernel's BTF at load. */
struct task_struct {
  int pid;
  int tgid;
  unsigned int __state;
} __attribute__((preserve_access_index));
/* Kernels before 5.14 name the state field `state` (a long). */
struct task_struct___old {
  long state;
} __attribute__((preserve_access_index));

/* The entry for key, created from init when missing. Two CPUs may create it at once: BPF_NOEXIST
 * makes the second update fail harmlessly and both then use the one that exists. NULL only when
 * the kernel has no memory for it (or the map is full, which its sizing rules out). */
static __always_inline void *lookup_or_create(void *map, const void *key, const void *init) {
  void *v = bpf_map_lookup_elem(map, key);
  if (v)
    return v;
  bpf_map_update_elem(map, key, init, BPF_NOEXIST);
  return bpf_map_lookup_elem(map, key);
}

/* Atomic min/max by compare-and-swap. Bounded retries for the verifier; each retry means another
 * CPU moved the value, and the loop ends as soon as the value no longer needs to move. Only 32
 * lost races in a row could leave a min or max off by one concurrent call (never a count). */
static __always_inline void atomic_min(__u64 *p, __u64 v) {
  __u64 cur = *p;
  for (int i = 0; i < 32 && v < cur; i++) {
    __u64 seen = __sync_val_compare_and_swap(p, cur, v);
    if (seen == cur)
      return;
    cur = seen;
  }
}
static __always_inline void atomic_max(__u64 *p, __u64 v) {
  __u64 cur = *p;
  for (int i = 0; i < 32 && v > cur; i++) {
    __u64 seen = __sync_val_compare_and_swap(p, cur, v);
    if (seen == cur)
      return;
    cur = seen;
  }
}

static __always_inline __u32 hist_bucket(__u64 ns) {
  __u32 b = gate_hist_bucket(ns);
  if (b >= GATE_HIST_BUCKETS) /* keeps the verifier sure of the bound */
    b = GATE_HIST_BUCKETS - 1;
  return b;
}

/* Adds n (may be -1) to bucket b of histogram `which` of func; 0 when no kernel memory was left
 * for its group. */
static __always_inline int hist_add(__u32 func, __u32 which, __u32 b, __u64 n) {
  struct gate_hist_key hk = {.func = func, .group = b / GATE_HIST_GROUP + which * GATE_HIST_GROUPS};
  struct gate_hist_group *grp = lookup_or_create(&func_hist, &hk, &new_group);
  if (!grp)
    return 0;
  __sync_fetch_and_add(&grp->counts[b & (GATE_HIST_GROUP - 1)], n);
  return 1;
}

/* A call's self time into func's self-time difference: nothing when it falls in its time's
 * bucket, else +1 at its bucket and -1 at the time's. 0 (nothing counted) when no kernel memory
 * was left for either group: both groups are found first, so a failure never leaves half a move
 * (at worst an empty group). A global function, verified once: inlined into record() (itself
 * inlined twice into every program), it tripled the instructions the verifier walks (120,808 ->
 * 382,548, bpftool -d prog loadall) and made loading ~0.3 s slower. */
__noinline int self_difference(__u32 func, __u64 time_ns, __u64 self_ns) {
  __u32 sb = hist_bucket(self_ns), tb = hist_bucket(time_ns);
  if (sb == tb)
    return 1;
  struct gate_hist_key ks = {.func = func, .group = sb / GATE_HIST_GROUP + GATE_HIST_SELF * GATE_HIST_GROUPS};
  struct gate_hist_key kt = {.func = func, .group = tb / GATE_HIST_GROUP + GATE_HIST_SELF * GATE_HIST_GROUPS};
  struct gate_hist_group *gs = lookup_or_create(&func_hist, &ks, &new_group);
  if (!gs)
    return 0;
  struct gate_hist_group *gt = lookup_or_create(&func_hist, &kt, &new_group);
  if (!gt)
    return 0;
  __sync_fetch_and_add(&gs->counts[sb & (GATE_HIST_GROUP - 1)], 1);
  __sync_fetch_and_add(&gt->counts[tb & (GATE_HIST_GROUP - 1)], (__u64)-1);
  return 1;
}

/* One finished call: its compensated time, raw window, self time and traced descendants. */
struct call_times {
  __u64 time_ns, raw_ns, self_ns, descendants;
  __u64 start_us, start_ms; /* the entry's moment after run_start_ns, >> 10 and >> 20 */
};

/* The self-time histogram is kept as its difference from the time histogram (GATE_HIST_SELF):
 * a call whose self time falls in its time's bucket (every call without traced children, most
 * calls of a glob over a module) adds nothing there; another adds +1 at its self bucket and -1 at
 * its time bucket. Storing both histograms whole made func_hist twice as large, and reading and
 * deleting it between runs (~1 us per group) twice as slow. */
static __always_inline void record(struct gate_func_stats *st, __u32 func, const struct call_times *t) {
  if (!hist_add(func, GATE_HIST_TIME, hist_bucket(t->time_ns), 1)) {
    __sync_fetch_and_add(&st->dropped, 1);
    return;
  }
  __sync_fetch_and_add(&st->count, 1);
  __sync_fetch_and_add(&st->sum_ns, t->time_ns);
  atomic_min(&st->min_ns, t->time_ns);
  atomic_max(&st->max_ns, t->time_ns);
  __sync_fetch_and_add(&st->sum_start_us, t->start_us);
  __sync_fetch_and_add(&st->sum_start_ms2, t->start_ms * t->start_ms);
  if (!true_time)
    return;
  if (!self_difference(func, t->time_ns, t->self_ns)) /* the call still counts; its self time is lost */
    __sync_fetch_and_add(&st->dropped, 1);
  __sync_fetch_and_add(&st->raw_sum_ns, t->raw_ns);
  atomic_min(&st->raw_min_ns, t->raw_ns);
  atomic_max(&st->raw_max_ns, t->raw_ns);
  __sync_fetch_and_add(&st->descendants, t->descendants);
  __sync_fetch_and_add(&st->self_sum_ns, t->self_ns);
}

/* Latency by argument: records a finished call of func into its bucket's series as well. */
static __always_inline void record_bucket(__u32 func, __u32 bucket, const struct call_times *t) {
  struct gate_arg_spec *spec = bpf_map_lookup_elem(&arg_buckets, &func);
  if (!spec)
    return;
  __u32 id = spec->first_id + bucket;
  struct gate_func_stats *st = lookup_or_create(&func_stats, &id, &new_stats);
  if (st)
    record(st, id, t);
  else
    __sync_fetch_and_add(&lost_no_record, 1);
}

static __always_inline __u64 cost_of(const volatile __u64 *table, __u32 kind) {
  /* The load is made unconditionally and bounded by its own mask: clang 19 (Debian 13) hoisted a
   * `kind < 4 ? table[kind] : 0` load above the check, and the verifier rejected a read up to 255
   * words past the 4-word table. */
  const __u64 v = table[kind & 3];
  return kind < 4 ? v : 0;
}

/* a - b, or 0 (and *clamped set) when b > a. */
static __always_inline __u64 minus(__u64 a, __u64 b, int *clamped) {
  if (b > a) {
    *clamped = 1;
    return 0;
  }
  return a - b;
}

/* A return paired with its entry frame f: the call's true time. Updates the goroutine's state
 * (gs, the state before this return's own cost is added). */
/* Preemption excluded: the time the call's thread was preempted inside its window, 0 when none
 * was seen or the call returned on another thread (counted). */
static __always_inline __u64 preempted_in_call(const struct gate_frame *f, __u32 tid) {
  if (!exclude_preemption)
    return 0;
  struct gate_thread *th = bpf_map_lookup_elem(&threads, &tid);
  __u64 total = th ? th->preempted_ns : 0;
  if (tid != f->tid || total < f->preempted_ns) {
    __sync_fetch_and_add(&thread_changed_calls, 1);
    return 0;
  }
  if (total == f->preempted_ns)
    return 0;
  __sync_fetch_and_add(&preempted_calls, 1);
  return total - f->preempted_ns;
}

static __always_inline void finish_call(struct gate_func_stats *st, __u32 func, __u64 now,
                                        const struct gate_frame *f, struct gate_g_state *gs, __u32 tid) {
  struct call_times t = {.raw_ns = now - f->ts};
  __u64 run_start = *(volatile __u64 *)&run_start_ns;
  if (run_start && f->ts > run_start) {
    t.start_us = (f->ts - run_start) >> 10;
    t.start_ms = (f->ts - run_start) >> 20;
  }
  int clamped = 0;
  __u64 bias = cost_of(costs.bias_ns, f->entry_kind) + preempted_in_call(f, tid);
  if (gs->epoch == f->epoch) {
    __u64 inner_cost = gs->cost_ns - f->cost_ns;
    __u64 children = gs->child_ns - f->child_ns;
    t.descendants = gs->calls - f->calls;
    t.time_ns = minus(t.raw_ns, bias + inner_cost, &clamped);
    int ignored = 0;
    t.self_ns = minus(t.time_ns, children, &ignored);
  } else {
    /* The goroutine's state was evicted and recreated during the call: what happened inside is
     * unknown. Keep the call, subtract only its own bias, and say so. */
    if (true_time)
      __sync_fetch_and_add(&st->uncompensated, 1);
    t.time_ns = minus(t.raw_ns, bias, &clamped);
    t.self_ns = t.time_ns;
  }
  if (clamped)
    __sync_fetch_and_add(&st->clamped, 1);
  record(st, func, &t);
  if (f->bucket) /* latency by argument: the same call into its bucket's series too */
    record_bucket(func, f->bucket - 1, &t);
  if (gs->epoch == f->epoch && f->caller) {
    struct gate_edge_key ek = {.caller = f->caller - 1, .callee = func};
    struct gate_edge *e = lookup_or_create(&call_edges, &ek, &new_edge);
    if (e) {
      __sync_fetch_and_add(&e->calls, 1);
      __sync_fetch_and_add(&e->sum_ns, t.time_ns);
    } else {
      __sync_fetch_and_add(&lost_edges, 1);
    }
  }
  gs->calls += 1;
  gs->child_ns = (gs->epoch == f->epoch ? f->child_ns : gs->child_ns) + t.time_ns;
  gs->cur_func = f->caller;
}

/* The goroutine's accumulators, created on its first probe hit; NULL only without kernel memory.
 * No atomics: a goroutine runs on one CPU at a time and a uprobe handler is not preempted. */
static __always_inline struct gate_g_state *goroutine_state(__u32 tgid, __u64 g) {
  if (!true_time)
    return NULL;
  struct gate_g_key k = {.tgid = tgid, .g = g};
  struct gate_g_state *gs = bpf_map_lookup_elem(&goroutines, &k);
  if (gs)
    return gs;
  struct gate_g_state fresh = {.epoch = bpf_ktime_get_ns()};
  bpf_map_update_elem(&goroutines, &k, &fresh, BPF_NOEXIST);
  return bpf_map_lookup_elem(&goroutines, &k);
}

/* Go ABI integer argument register i (0 RAX ... 8 R11) at the entry probe. Picked by offset and
 * read with one helper call: a switch of ctx->rax, ctx->rbx ... is compiled into one load from a
 * computed ctx offset, which the verifier refuses. */
static __always_inline __u64 abi_register(struct pt_regs *ctx, __u32 i) {
  __u32 off;
  switch (i) {
  case 0: off = offsetof(struct pt_regs, rax); break;
  case 1: off = offsetof(struct pt_regs, rbx); break;
  case 2: off = offsetof(struct pt_regs, rcx); break;
  case 3: off = offsetof(struct pt_regs, rdi); break;
  case 4: off = offsetof(struct pt_regs, rsi); break;
  case 5: off = offsetof(struct pt_regs, r8); break;
  case 6: off = offsetof(struct pt_regs, r9); break;
  case 7: off = offsetof(struct pt_regs, r10); break;
  default: off = offsetof(struct pt_regs, r11); break;
  }
  __u64 v = 0;
  bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
  return v;
}

/* Latency by argument: the bucket index + 1 of this call of func, 0 when func has no bucket_by or
 * the argument could not be read (a map header that faults). */
static __always_inline __u32 arg_bucket(struct pt_regs *ctx, __u32 func) {
  if (!arg_buckets_on)
    return 0;
  struct gate_arg_spec *spec = bpf_map_lookup_elem(&arg_buckets, &func);
  if (!spec)
    return 0;
  __u64 raw = abi_register(ctx, spec->reg);
  __s64 v;
  switch (spec->read) {
  case GATE_ARG_SIGNED:
    v = spec->size == 1 ? (__s64)(__s8)raw : spec->size == 2 ? (__s64)(__s16)raw
      : spec->size == 4 ? (__s64)(__s32)raw : (__s64)raw;
    break;
  case GATE_ARG_UNSIGNED: {
    __u64 u = spec->size == 1 ? (__u8)raw : spec->size == 2 ? (__u16)raw : spec->size == 4 ? (__u32)raw : raw;
    v = u > 0x7fffffffffffffffULL ? 0x7fffffffffffffffLL : (__s64)u; /* above every bound */
    break;
  }
  case GATE_ARG_NIL:
    v = raw != 0;
    break;
  default: {
    __u64 n = 0;
    if (raw && bpf_probe_read_user(&n, sizeof(n), (void *)(raw + spec->offset)) != 0)
      return 0;
    v = (__s64)n;
  }
  }
  __u32 b = 0;
  for (int i = 0; i < GATE_ARG_MAX_BOUNDS; i++)
    if (i < spec->nbounds && v >= spec->bounds[i])
      b = i + 1;
  return b + 1;
}

/* The frame an entry and its return share: its goroutine (a C frame: its thread) and its depth
 * on that stack. 0 when a goroutine's stack bound cannot be read (the hit is counted dropped). */
static __always_inline int frame_key(struct pt_regs *ctx, struct gate_func_stats *st, __u32 kind, __u32 tid,
                                     __u64 g, struct gate_frame_key *key) {
  __u64 sp = ctx->rsp;
  if (kind >= GATE_SITE_NATIVE_ENTRY) {
    /* A C frame lives on the thread's own stack, which never moves: the thread and the entry's
     * stack pointer tell recursive frames apart, and a frame left by longjmp or an exception is
     * replaced (counted abandoned) by the next call at the same depth, never paired later. */
    g = GATE_NATIVE_THREAD_TAG | tid;
    key->depth = kind == GATE_SITE_NATIVE_URETPROBE ? sp - 8 : sp;
  } else {
    __u64 stack_hi = 0;
    if (bpf_probe_read_user(&stack_hi, sizeof(stack_hi), (void *)(g + g_stack_hi_offset)) != 0) {
      __sync_fetch_and_add(&st->dropped, 1);
      return 0;
    }
    key->depth = stack_hi - sp;
  }
  key->g = g;
  return 1;
}

/* A return site's hit: pairs it with its entry's frame and records the call. */
static __always_inline void on_return(struct gate_func_stats *st, __u32 func, __u32 kind, __u64 now,
                                      struct gate_frame_key *key, struct gate_g_state *gs, __u32 tid) {
  struct gate_frame *f = bpf_map_lookup_elem(&frames, key);
  if (!f) {
    __sync_fetch_and_add(&st->unmatched_returns, 1);
  } else {
    struct gate_frame entry = *f;
    bpf_map_delete_elem(&frames, key);
    __u64 slice_start = *(volatile __u64 *)&slice_start_ns;
    if (slice_start && entry.ts < slice_start) {
      /* Its traced callers entered earlier still, so they straddle too: nothing to rewind but
       * the goroutine's innermost traced function. */
      __sync_fetch_and_add(&straddled_calls, 1);
      if (gs)
        gs->cur_func = entry.caller;
    } else if (gs) {
      finish_call(st, func, now, &entry, gs, tid);
    } else {
      struct gate_g_state none = {.epoch = ~entry.epoch};
      finish_call(st, func, now, &entry, &none, tid);
    }
  }
  if (gs)
    gs->cost_ns += cost_of(costs.full_ns, kind);
}

/* An entry site's hit: opens the call's frame, its timestamp taken last. */
static __always_inline void on_entry(struct pt_regs *ctx, struct gate_func_stats *st, __u32 func, __u32 kind,
                                     struct gate_frame_key *key, struct gate_g_state *gs, __u32 tid) {
  /* An entry for a frame that already has one: the earlier call never returned (a panic unwound
   * it, or runtime.Goexit). Count it and start afresh, never pairing the stale entry. */
  if (bpf_map_lookup_elem(&frames, key))
    __sync_fetch_and_add(&st->abandoned_entries, 1);
  struct gate_frame f = {.entry_kind = kind, .bucket = arg_bucket(ctx, func)};
  if (gs) {
    gs->cost_ns += cost_of(costs.full_ns, kind);
    f.epoch = gs->epoch;
    f.cost_ns = gs->cost_ns;
    f.calls = gs->calls;
    f.child_ns = gs->child_ns;
    f.caller = gs->cur_func;
    gs->cur_func = func + 1;
  } else {
    f.epoch = ~0ULL; /* matches no state: the call is recorded uncompensated */
  }
  if (exclude_preemption) {
    struct gate_thread *th = bpf_map_lookup_elem(&threads, &tid);
    f.tid = tid;
    f.preempted_ns = th ? th->preempted_ns : 0;
  }
  f.ts = bpf_ktime_get_ns(); /* last: keep the handler's own work out of the window */
  if (bpf_map_update_elem(&frames, key, &f, BPF_ANY) != 0)
    __sync_fetch_and_add(&st->dropped, 1);
}

/* The current process, if it is one gate started and is waiting to follow (`pending`, keyed by
 * its PID in gate's namespace): tracked from now on under its initial-namespace tgid. 1 if so. */
static __always_inline int follow_pending(__u32 tgid) {
  struct bpf_pidns_info ns = {};
  if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)) != 0)
    return 0; /* not in gate's PID namespace: not a process gate started */
  if (!bpf_map_lookup_elem(&pending, &ns.tgid))
    return 0;
  __u8 one = 1;
  bpf_map_update_elem(&tracked, &tgid, &one, BPF_ANY);
  bpf_map_delete_elem(&pending, &ns.tgid);
  __sync_fetch_and_add(&followed, 1);
  return 1;
}

/* A hit of any site: which process, function and kind (the cookie), the hits that are not a
 * call's entry or return (a library load, a morestack detour, a count-only entry), then the frame
 * the entry and its return share, and one of the two handlers. */
static __always_inline int on_site(struct pt_regs *ctx) {
  __u64 now = bpf_ktime_get_ns(); /* first: a return's time is taken as early as possible */
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  __u32 tid = (__u32)pid_tgid;
  if (!bpf_map_lookup_elem(&tracked, &tgid) && !(pending_on && follow_pending(tgid)))
    return 0;

  __u64 cookie = bpf_get_attach_cookie(ctx);
  __u32 func = (__u32)cookie;
  __u32 kind = (cookie >> 32) & 0xff;
  __u32 cond = (cookie >> 40) & 0xff;
  if (kind == GATE_SITE_LIBRARY_LOADED) {
    if (cond < GATE_MAX_WATCHED_LIBRARIES)
      __sync_fetch_and_add(&library_loads[cond], 1);
    return 0;
  }
  struct gate_func_stats *st = lookup_or_create(&func_stats, &func, &new_stats);
  if (!st) {
    __sync_fetch_and_add(&lost_no_record, 1);
    return 0;
  }

  /* Go >= 1.17 on amd64 keeps the current g in R14. */
  __u64 g = ctx->r14;
  if (kind == GATE_SITE_ENTRY_JCC) {
    /* The probe fires before the jump executes, with the flags of the stack-check compare.
     * A taken jump goes to morestack, which restarts the function: not a call, but a hit whose
     * cost lands in the windows of the calls in flight on this goroutine. */
    __u64 flags = ctx->eflags;
    int taken = cond == GATE_JCC_B ? (flags & X86_CF) != 0 : (flags & (X86_CF | X86_ZF)) != 0;
    if (taken) {
      __sync_fetch_and_add(&st->diverted_entries, 1);
      struct gate_g_state *gs = goroutine_state(tgid, g);
      if (gs)
        gs->cost_ns += cost_of(costs.full_ns, kind);
      return 0;
    }
  }
  if ((cookie >> GATE_COOKIE_FLAGS_SHIFT) & GATE_SITE_FLAG_COUNT_ONLY) {
    /* A sampled function's entry: its calls are counted; its time comes from CPU samples. */
    __sync_fetch_and_add(&st->count, 1);
    return 0;
  }
  struct gate_frame_key key = {.tgid = tgid, .func = func};
  if (!frame_key(ctx, st, kind, tid, g, &key))
    return 0;
  struct gate_g_state *gs = goroutine_state(tgid, key.g);

  if (kind == GATE_SITE_RETURN || kind == GATE_SITE_NATIVE_URETPROBE || kind == GATE_SITE_NATIVE_RETURN)
    on_return(st, func, kind, now, &key, gs, tid);
  else
    on_entry(ctx, st, func, kind, &key, gs, tid);
  return 0;
}

/* Two copies of one program: the loader keeps the one that attaches on this kernel (one
 * uprobe_multi link for all sites, or one perf-event link per site). */
SEC("uprobe")
int gate_site_multi(struct pt_regs *ctx) { return on_site(ctx); }

SEC("uprobe")
int gate_site_single(struct pt_regs *ctx) { return on_site(ctx); }

/* Follow the workload's process tree: a new process whose parent is tracked is tracked. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(gate_fork, struct task_struct *parent, struct task_struct *child) {
  __u32 ptgid = BPF_CORE_READ(parent, tgid);
  __u32 ctgid = BPF_CORE_READ(child, tgid);
  if (ptgid == ctgid || !bpf_map_lookup_elem(&tracked, &ptgid))
    return 0;
  __u8 one = 1;
  bpf_map_update_elem(&tracked, &ctgid, &one, BPF_ANY);
  return 0;
}

/* A process gate started execs (it was held before, so nothing of the workload ran yet): if it is
 * pending, it is followed from here, before its first instruction. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(gate_exec, struct task_struct *task, int old_pid, void *bprm) {
  if (pending_on)
    follow_pending(bpf_get_current_pid_tgid() >> 32);
  return 0;
}

/* A process of the tree is gone: forget its tgid so that a later unrelated process that reuses
 * the number is not counted. Only the thread-group leader's exit removes it. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(gate_exit, struct task_struct *task) {
  __u32 pid = BPF_CORE_READ(task, pid);
  __u32 tgid = BPF_CORE_READ(task, tgid);
  if (pid == tgid)
    bpf_map_delete_elem(&tracked, &tgid);
  return 0;
}

/* Preemption excluded: what other processes took from the workload's threads. Each CPU keeps the
 * time tasks of other processes (kernel threads included, the idle task not) ran on it. A thread
 * of the workload switched out while still runnable (preempted, or yielding) notes its CPU and that
 * CPU's foreign time; when it is switched in again, the foreign time that CPU gained meanwhile (at
 * most the stretch itself) is added to its preempted time. So while it waits, the time its CPU
 * spent on the workload's own threads stays in the call: a program competing with itself for the
 * CPU is its own doing, and a change that adds a busy thread must still show as slower. Not
 * counted at all: a thread that goes to sleep (blocks in a syscall, a futex): waiting is the
 * code's own latency. A thread moved to another CPU while it waited is charged with what its
 * first CPU's foreign tasks ran, up to its stretch. Loaded (autoload) only with
 * exclude_preemption: it runs on every context switch of the machine, ~3 map lookups each. */
static __always_inline __u64 foreign_now(const struct gate_cpu *c, __u64 now) {
  __u64 since = c->foreign_since;
  return c->foreign_ns + (since && now > since ? now - since : 0);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(gate_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next) {
  __u64 now = bpf_ktime_get_ns();
  __u32 cpu = bpf_get_smp_processor_id();
  struct gate_cpu *c = bpf_map_lookup_elem(&cpus, &cpu);
  if (!c)
    return 0;
  __u32 ptgid = BPF_CORE_READ(prev, tgid);
  __u32 ntgid = BPF_CORE_READ(next, tgid);
  __u32 npid = BPF_CORE_READ(next, pid);
  int prev_ours = bpf_map_lookup_elem(&tracked, &ptgid) != NULL;
  int next_ours = bpf_map_lookup_elem(&tracked, &ntgid) != NULL;
  /* Close the CPU's foreign stretch, then open one if the next task is another process's. */
  __u64 foreign = foreign_now(c, now);
  c->foreign_ns = foreign;
  c->foreign_since = (!next_ours && npid != 0) ? now : 0;
  if (prev_ours) {
    long state;
    if (bpf_core_field_exists(prev->__state))
      state = BPF_CORE_READ(prev, __state);
    else
      state = BPF_CORE_READ((struct task_struct___old *)prev, state);
    if (preempt || state == 0) { /* TASK_RUNNING: still runnable, the CPU was taken from it */
      __u32 ptid = BPF_CORE_READ(prev, pid);
      struct gate_thread fresh = {};
      struct gate_thread *th = lookup_or_create(&threads, &ptid, &fresh);
      if (th) {
        th->out_at = now;
        th->out_foreign = foreign;
        th->out_cpu = cpu;
      }
    }
  }
  if (next_ours) {
    struct gate_thread *th = bpf_map_lookup_elem(&threads, &npid);
    if (th && th->out_at) {
      __u64 stretch = now - th->out_at;
      __u32 was = th->out_cpu;
      struct gate_cpu *wc = was == cpu ? c : bpf_map_lookup_elem(&cpus, &was);
      __u64 took = 0;
      if (wc) {
        __u64 f = foreign_now(wc, now);
        took = f > th->out_foreign ? f - th->out_foreign : 0;
      }
      th->preempted_ns += took < stretch ? took : stretch;
      th->out_at = 0;
    }
  }
  return 0;
}
