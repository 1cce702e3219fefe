/* Kernel side of gate's sampled CPU profiles: a cpu-clock perf event per CPU runs this program;
 * samples of the workload's process tree take the user stack (frame-pointer walk, the kernel's)
 * and are counted in the kernel by {side, stack, leaf fix-up words}. No per-sample event reaches
 * user space. */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "profile_shared.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load: the profiled binary's text, where return addresses point. */
const volatile __u64 text_lo = 0;
const volatile __u64 text_hi = 0;

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

static __always_inline __u64 text_word(__u64 w) { return (w >= text_lo && w < text_hi) ? w : 0; }

#define GATE_ENOENT 2
#define GATE_E2BIG 7
#define GATE_EEXIST 17

/* Takes the current user (BPF_F_USER_STACK) or kernel stack into the stacks map under a hash of its
 * frames (FNV-1a over the words, then the length); 0 and *hash set, or -errno. Two different
 * stacks with one 64-bit hash would share a stack: at ~10^4 stacks a run, about 1 in 10^11. */
static __always_inline long take_stack(void *ctx, __u64 flags, __u64 *hash) {
  __u32 zero = 0;
  struct gate_profile_stack *buf = bpf_map_lookup_elem(&scratch, &zero);
  if (!buf)
    return -GATE_ENOENT;
  long n = bpf_get_stack(ctx, buf->pcs, sizeof(buf->pcs), flags); /* zero-fills the rest */
  if (n <= 0)
    return n < 0 ? n : -GATE_ENOENT;
  __u64 h = 0xcbf29ce484222325ull;
  for (int i = 0; i < GATE_PROFILE_MAX_DEPTH; i++) {
    if ((long)i * 8 >= n)
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

SEC("perf_event")
int gate_profile_sample(struct bpf_perf_event_data *ctx) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  __u32 *side = bpf_map_lookup_elem(&tracked, &tgid);
  if (!side)
    return 0;
  count(GATE_PROFILE_SAMPLES);

  struct gate_profile_key key = {.side = *side};
  key.user_error = (__s32)take_stack(ctx, BPF_F_USER_STACK, &key.user_stack);
  if (key.user_error)
    count(GATE_PROFILE_NO_USER_STACK);
  if ((ctx->regs.cs & 3) != 3) {
    key.flags |= GATE_PROFILE_IN_KERNEL;
    take_stack(ctx, 0, &key.kernel_stack);
  }

  struct task_struct *task = (struct task_struct *)bpf_get_current_task();
  struct uprobe_task *utask = BPF_CORE_READ(task, utask);
  if (utask && BPF_CORE_READ(utask, active_uprobe)) {
    key.flags |= GATE_PROFILE_IN_PROBE;
    key.probe_addr = BPF_CORE_READ(utask, vaddr);
  }

  /* The user registers: the interrupted ones, or the task's saved ones when in the kernel. */
  struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs((struct task_struct *)bpf_get_current_task_btf());
  __u64 sp = 0;
  bpf_probe_read_kernel(&sp, sizeof(sp), &PT_REGS_SP(uregs));
  __u64 words[2] = {};
  if (sp && bpf_probe_read_user(words, sizeof(words), (void *)sp) == 0) {
    key.sp_word0 = text_word(words[0]);
    key.sp_word1 = text_word(words[1]);
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
