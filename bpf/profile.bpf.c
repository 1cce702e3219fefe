/* Kernel side of gate's sampled CPU profiles: a cpu-clock perf event per CPU runs this program;
 * samples of the workload's process tree take the user stack (the first frames from the binary's
 * pc-to-SP table, the rest by frame pointers) and are counted in the kernel by {side, stack}. No
 * per-sample event reaches user space. */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "profile_shared.h"

char LICENSE[] SEC("license") = "GPL";

/* key: tgid of a process in the workload's tree; value: its side (0 base / a run, 1 head).
 * Seeded by user space with each run's first pid; children inherit their parent's side. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 8192);
  __type(key, __u32);
  __type(value, __u32);
} tracked SEC(".maps");

/* gate's PID namespace (/proc/self/ns/pid's device and inode), as in gate.bpf.c: user space knows
 * a run's first process by its PID there; `tracked` holds tgids as the initial namespace numbers
 * them (bpf_get_current_pid_tgid), which the process's exec tells (gate_profile_exec). */
const volatile __u64 pidns_dev = 0;
const volatile __u64 pidns_ino = 0;

/* key: a run's first process by its PID in gate's namespace, held before its exec; value: its
 * side. Moved to `tracked` by its exec (gate_profile_exec). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 256);
  __type(key, __u32);
  __type(value, __u32);
} pending SEC(".maps");

/* key: a stack's hash (gate_profile_key.user_stack / kernel_stack); value: its frames. Sized from
 * user space, which empties it between runs (the sampler's drain). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, __u64);
  __type(value, struct gate_profile_stack);
} stacks SEC(".maps");

/* bpf_get_stack's buffer: one stack is too large for the BPF stack. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gate_profile_stack);
} scratch SEC(".maps");

/* key: a sampled stack (struct gate_profile_key); value: samples taken with it. Sized from user space. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 32768);
  __type(key, struct gate_profile_key);
  __type(value, __u64);
} counts SEC(".maps");

/* The unwinder's table: every profiled binary's pc-to-SP ranges (struct gate_unwind_entry), one
 * binary after another. Sized and filled from user space before the first sample. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gate_unwind_entry);
} unwind_entries SEC(".maps");

/* key: a side (as in `tracked`); value: its binary's code bounds and entries. A side without one
 * (a warm-up's) is walked by frame pointers alone. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 64);
  __type(key, __u32);
  __type(value, struct gate_unwind_binary);
} unwind_binaries SEC(".maps");

/* key: enum gate_profile_counter; value: its count (per CPU). */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, GATE_PROFILE_COUNTERS);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

/* Minimal kernel structs for CO-RE: offsets are relocated against the kernel's BTF at load. The
 * task's uprobe state says whether it is inside a uprobe's handling and which address was probed. */
struct uprobe_task {
  unsigned long vaddr; /* in an anonymous union in the kernel: CO-RE finds it by name */
  void *active_uprobe;
} __attribute__((preserve_access_index));
struct task_struct {
  int pid;
  int tgid;
  struct uprobe_task *utask;
} __attribute__((preserve_access_index));

static __always_inline void count(__u32 which) {
  __u64 *c = bpf_map_lookup_elem(&counters, &which);
  if (c)
    *c += 1;
}

#define GATE_ENOENT 2
#define GATE_E2BIG 7
#define GATE_EEXIST 17

/* Stores buf's first n frames (the rest zero: user space reads up to the first 0) in the stacks map
 * under a hash of them (FNV-1a over the words, then the count); 0 and *hash set, or -errno. Two
 * different stacks with one 64-bit hash would share a stack: at ~10^4 stacks a run, about 1 in
 * 10^11. */
static __always_inline long store_stack(struct gate_profile_stack *buf, long n, __u64 *hash) {
  __u64 h = 0xcbf29ce484222325ull;
  for (int i = 0; i < GATE_PROFILE_MAX_DEPTH; i++) {
    if (i >= n)
      break;
    h ^= buf->pcs[i];
    h *= 0x100000001b3ull;
  }
  h ^= (__u64)n;
  h *= 0x100000001b3ull;
  if (h == 0)
    h = 1;
  long err = bpf_map_update_elem(&stacks, &h, buf, BPF_NOEXIST);
  if (err && err != -GATE_EEXIST)
    return err; /* -E2BIG: the map is full */
  *hash = h;
  return 0;
}

/* The kernel stack, by the kernel's own walk (bpf_get_stack zero-fills the rest). */
static __always_inline long take_kernel_stack(void *ctx, __u64 *hash) {
  __u32 zero = 0;
  struct gate_profile_stack *buf = bpf_map_lookup_elem(&scratch, &zero);
  if (!buf)
    return -GATE_ENOENT;
  long n = bpf_get_stack(ctx, buf->pcs, sizeof(buf->pcs), 0);
  if (n <= 0)
    return n < 0 ? n : -GATE_ENOENT;
  return store_stack(buf, n / 8, hash);
}

/* The SP delta at pc in bin's code (the return address lies that many bytes above SP): 1 and *delta
 * set, or 0 when pc is in no Go function of it. A binary search of its sorted entries. */
static __always_inline int sp_delta(const struct gate_unwind_binary *bin, __u64 pc, __s32 *delta) {
  if (pc < bin->text_lo || pc >= bin->text_hi || bin->count == 0)
    return 0;
  __u32 off = (__u32)(pc - bin->text_lo);
  __u32 lo = bin->first, hi = bin->first + bin->count; /* the answer is in [lo, hi) */
  for (int i = 0; i < GATE_UNWIND_SEARCH_STEPS + 1; i++) {
    if (hi - lo <= 1)
      break;
    __u32 mid = lo + (hi - lo) / 2;
    struct gate_unwind_entry *e = bpf_map_lookup_elem(&unwind_entries, &mid);
    if (!e)
      return 0;
    if (e->pc <= off)
      lo = mid;
    else
      hi = mid;
  }
  struct gate_unwind_entry *e = bpf_map_lookup_elem(&unwind_entries, &lo);
  if (!e || e->pc > off || e->sp_delta < 0)
    return 0;
  *delta = e->sp_delta;
  return 1;
}

/* Frames walked from the binary's pc-to-SP table before the frame pointers take over: the leaf,
 * then callers until one with a frame of its own (whose frame pointer is then known exactly). */
#define GATE_UNWIND_TABLE_FRAMES 4

/* The user stack into buf, leaf first; returns the number of frames.
 *
 * Why not bpf_get_stack(BPF_F_USER_STACK): the kernel walks frame pointers from the sampled BP, and
 * the sampled BP is not the leaf's frame in a frameless function, a prologue or an epilogue (the
 * caller is skipped), nor in assembly that uses BP as a data register (Go 1.19's crypto/sha256
 * block, sha512's blockAVX2 up to Go 1.27: BP holds the round constants' address, the walk reads
 * two constants as a frame and stops, and every sample of the hash loses its callers; issue 54).
 * Go keeps an exact pc-to-SP table for every function, assembly included (its own tracebacks need
 * it): the leaf's return address is at SP + delta(pc). The caller is in a call, so past its
 * prologue; if it has a frame, its frame pointer is SP' + delta'(ret - 1) - 8 (Go saves the
 * caller's BP just below the return address, in every version), and from there the frame pointers
 * hold (Go code keeps them). A frameless caller (assembly that calls) is stepped by the table too. */
static __always_inline int walk_user(struct pt_regs *uregs, __u64 probe_addr, const struct gate_unwind_binary *bin,
                                     struct gate_profile_stack *buf, __u32 *flags) {
  __u64 pc = 0, sp = 0, bp = 0;
  bpf_probe_read_kernel(&pc, sizeof(pc), &PT_REGS_IP(uregs));
  bpf_probe_read_kernel(&sp, sizeof(sp), &PT_REGS_SP(uregs));
  bpf_probe_read_kernel(&bp, sizeof(bp), &PT_REGS_FP(uregs));
  if (pc == 0)
    return 0;
  int n = 0;
  buf->pcs[n++] = pc;
  if (bin) {
    /* Single-stepping out of line, the PC is in the [uprobes] page: the code is the probed
     * instruction's. (Still in the probe's handling with the PC back in the binary, the step is
     * done: a stepped `ret` left the PC and SP in the caller, and the walk starts there.) */
    __u64 at = probe_addr && (pc < bin->text_lo || pc >= bin->text_hi) ? probe_addr : pc;
    for (int step = 0; step < GATE_UNWIND_TABLE_FRAMES; step++) {
      __s32 d = 0;
      if (!sp_delta(bin, step == 0 ? at : at - 1, &d))
        break; /* not Go code of the binary: frame pointers from here (the leaf's: the kernel's way) */
      if (step > 0 && d > 0) {
        bp = sp + (__u64)d - 8; /* a caller with a frame: its frame pointer, exactly */
        break;
      }
      __u64 ret = 0;
      if (bpf_probe_read_user(&ret, sizeof(ret), (void *)(sp + (__u64)d)) != 0)
        return n;
      if (step == 0) {
        *flags |= GATE_PROFILE_UNWIND_TABLE;
        __u64 fp_ret = 0;
        if (bp == 0 || bpf_probe_read_user(&fp_ret, sizeof(fp_ret), (void *)(bp + 8)) != 0 || fp_ret != ret)
          *flags |= GATE_PROFILE_FP_DIFFERED;
      }
      /* No code there: the goroutine's root (runtime.goexit's caller) or a thread's; stop. */
      if (ret < bin->text_lo || ret >= bin->text_hi)
        return n;
      if (n >= GATE_PROFILE_MAX_DEPTH)
        return n;
      buf->pcs[n++] = ret;
      sp += (__u64)d + 8;
      at = ret;
      if (step == GATE_UNWIND_TABLE_FRAMES - 1)
        return n; /* frameless callers all the way: the frame pointer is nobody's */
    }
  }
  /* Frame pointers, as the kernel walks them: [bp] the caller's bp, [bp + 8] the return address. */
  for (int i = 0; i < GATE_PROFILE_MAX_DEPTH; i++) {
    if (n >= GATE_PROFILE_MAX_DEPTH || bp == 0 || (bp & 7) != 0)
      break;
    __u64 frame[2] = {};
    if (bpf_probe_read_user(frame, sizeof(frame), (void *)bp) != 0 || frame[1] == 0)
      break;
    buf->pcs[n++] = frame[1];
    if (frame[0] == bp)
      break;
    bp = frame[0];
  }
  return n;
}

SEC("perf_event")
int gate_profile_sample(struct bpf_perf_event_data *ctx) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  __u32 *side = bpf_map_lookup_elem(&tracked, &tgid);
  if (!side)
    return 0;
  count(GATE_PROFILE_SAMPLES);

  struct gate_profile_key key = {.side = *side};
  struct task_struct *task = (struct task_struct *)bpf_get_current_task();
  struct uprobe_task *utask = BPF_CORE_READ(task, utask);
  if (utask && BPF_CORE_READ(utask, active_uprobe)) {
    key.flags |= GATE_PROFILE_IN_PROBE;
    key.probe_addr = BPF_CORE_READ(utask, vaddr);
  }

  /* The user registers: the interrupted ones, or the task's saved ones when in the kernel. */
  struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs((struct task_struct *)bpf_get_current_task_btf());
  __u32 zero = 0, side_key = *side;
  struct gate_profile_stack *buf = bpf_map_lookup_elem(&scratch, &zero);
  if (!buf)
    return 0;
  const struct gate_unwind_binary *bin = bpf_map_lookup_elem(&unwind_binaries, &side_key);
  int frames = walk_user(uregs, key.probe_addr, bin, buf, &key.flags);
  if (frames > 0 && frames < GATE_PROFILE_MAX_DEPTH)
    buf->pcs[frames] = 0; /* the end, for user space; the words after it are an earlier sample's */
  if (frames > 0)
    key.user_error = (__s32)store_stack(buf, frames, &key.user_stack);
  else
    key.user_error = -GATE_ENOENT;
  if (key.user_error)
    count(GATE_PROFILE_NO_USER_STACK);
  if ((ctx->regs.cs & 3) != 3) {
    key.flags |= GATE_PROFILE_IN_KERNEL;
    take_kernel_stack(ctx, &key.kernel_stack);
  }

  __u64 one = 1;
  __u64 *n = bpf_map_lookup_elem(&counts, &key);
  if (n)
    __sync_fetch_and_add(n, 1);
  else if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST) != 0) {
    n = bpf_map_lookup_elem(&counts, &key); /* another CPU created it meanwhile */
    if (n)
      __sync_fetch_and_add(n, 1);
    else
      count(GATE_PROFILE_KEY_DROPPED);
  }
  return 0;
}

/* Follow the workload's process tree: a new process whose parent is tracked gets its side. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(gate_profile_fork, struct task_struct *parent, struct task_struct *child) {
  __u32 ptgid = BPF_CORE_READ(parent, tgid);
  __u32 ctgid = BPF_CORE_READ(child, tgid);
  __u32 *side = bpf_map_lookup_elem(&tracked, &ptgid);
  if (ptgid == ctgid || !side)
    return 0;
  __u32 s = *side;
  bpf_map_update_elem(&tracked, &ctgid, &s, BPF_ANY);
  return 0;
}

/* A pending process execs: it is sampled from here, under its initial-namespace tgid. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(gate_profile_exec, struct task_struct *task, int old_pid, void *bprm) {
  struct bpf_pidns_info ns = {};
  if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)) != 0)
    return 0; /* not in gate's PID namespace */
  __u32 *side = bpf_map_lookup_elem(&pending, &ns.tgid);
  if (!side)
    return 0;
  __u32 s = *side, tgid = bpf_get_current_pid_tgid() >> 32;
  bpf_map_update_elem(&tracked, &tgid, &s, BPF_ANY);
  bpf_map_delete_elem(&pending, &ns.tgid);
  return 0;
}

/* A process of the tree is gone: forget its tgid (only the thread-group leader's exit). The same
 * as gate.bpf.c's, on this program's own map: the two programs load and live apart. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(gate_profile_exit, struct task_struct *task) {
  __u32 pid = BPF_CORE_READ(task, pid);
  __u32 tgid = BPF_CORE_READ(task, tgid);
  if (pid == tgid)
    bpf_map_delete_elem(&tracked, &tgid);
  return 0;
}
