/* Structs shared by bpf/profile.bpf.c and gate/profile/sampler.cpp: what one sampled stack is keyed
 * by in the kernel. Plain fixed-width C, the same layout on both sides. */
#ifndef GATE_PROFILE_SHARED_H
#define GATE_PROFILE_SHARED_H

#include <linux/types.h>

/* Deepest stack kept, in frames: perf_event_max_stack's default. */
#define GATE_PROFILE_MAX_DEPTH 127

/* One stack, leaf first, zero-filled after its last frame: a value of the stacks map. */
struct gate_profile_stack {
  __u64 pcs[GATE_PROFILE_MAX_DEPTH];
};

struct gate_profile_key {
  __u32 side;  /* what the process tree was tracked as (0 base / run, 1 head) */
  __u32 flags; /* GATE_PROFILE_* */
  /* A stack's key in the stacks map: a 64-bit hash of its frames (never 0); 0: none. The kernel
   * side hashes the stacks itself (bpf_get_stack) instead of using a stack-trace map
   * (bpf_get_stackid), whose buckets drop a new stack when another holds its bucket: at ~1,300
   * stacks a run in 16,384 buckets one hot stack lost that way took 2,000 samples with it. */
  __u64 user_stack;
  __u64 kernel_stack; /* sampled in the kernel: its stack; 0 in user mode */
  __s32 user_error;   /* the user stack could not be stored (-E2BIG: the stacks map was full) */
  __u32 pad;
  /* GATE_PROFILE_IN_PROBE: the probed instruction's address (the task's active uprobe) */
  __u64 probe_addr;
};

#define GATE_PROFILE_IN_PROBE 1u  /* inside a uprobe's single-step (XOL page) or its handler */
#define GATE_PROFILE_IN_KERNEL 2u /* the sample interrupted kernel code on behalf of the task */
/* The leaf's caller came from the binary's pc-to-SP table (struct gate_unwind_entry), not from the
 * frame pointer. */
#define GATE_PROFILE_UNWIND_TABLE 4u
/* ... and the leaf's frame pointer named another caller or none: the kernel's frame-pointer walk
 * (bpf_get_stack) would have skipped the caller (frameless leaf, prologue, epilogue) or lost the
 * whole stack (assembly that uses BP as a data register: Go 1.19's crypto/sha256). */
#define GATE_PROFILE_FP_DIFFERED 8u

/* The unwinder's table (gate/profile/unwind.hpp builds it from .gopclntab): from code offset `pc`
 * (from the binary's text_lo) up to the next entry's, the return address lies `sp_delta` bytes
 * above SP; sp_delta < 0: no walk from there (INT32_MIN: no Go function; a function that popped
 * its own return address, as syscall.rawVforkSyscall does: -8). Entries of one binary are sorted
 * by pc. */
struct gate_unwind_entry {
  __u32 pc;
  __s32 sp_delta;
};

/* One side's binary: its code's bounds and its entries [first, first + count) in the table. */
struct gate_unwind_binary {
  __u64 text_lo, text_hi;
  __u32 first, count;
};

/* A binary's table holds at most 2^GATE_UNWIND_SEARCH_STEPS entries (the binary search's bound;
 * a Go binary of 50,000 functions has ~400,000). */
#define GATE_UNWIND_SEARCH_STEPS 24

/* Counters the loader reads (one array slot each). */
enum gate_profile_counter {
  GATE_PROFILE_SAMPLES = 0, /* samples of tracked processes */
  GATE_PROFILE_NO_USER_STACK, /* no user stack taken or stored: counted under user_error */
  GATE_PROFILE_KEY_DROPPED,   /* the counts map was full */
  GATE_PROFILE_COUNTERS
};

#endif
