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
  __s32 user_error;   /* the user stack could not be taken (-errno) or stored (-E2BIG: map full) */
  __u32 pad;
  /* The words at the user SP and SP+8 when they point into the binary's text, else 0: the return
   * address of a frame whose frame pointer is not set up (frameless leaf, prologue, epilogue),
   * which the frame-pointer walk skips. User space picks one with pclntab's SP delta. */
  __u64 sp_word0, sp_word1;
  /* GATE_PROFILE_IN_PROBE: the probed instruction's address (the task's active uprobe) */
  __u64 probe_addr;
};

#define GATE_PROFILE_IN_PROBE 1u  /* inside a uprobe's single-step (XOL page) or its handler */
#define GATE_PROFILE_IN_KERNEL 2u /* the sample interrupted kernel code on behalf of the task */

/* Counters the loader reads (one array slot each). */
enum gate_profile_counter {
  GATE_PROFILE_SAMPLES = 0, /* samples of tracked processes */
  GATE_PROFILE_NO_USER_STACK, /* no user stack taken or stored: counted under user_error */
  GATE_PROFILE_KEY_DROPPED,   /* the counts map was full */
  GATE_PROFILE_COUNTERS
};

#endif
