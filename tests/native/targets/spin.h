/* The clock busy-wait every native test target times: its length is set by the clock, not by
 * the CPU's speed, so the expected latency is known whatever the machine's speed swings. */
#ifndef GATE_NATIVE_SPIN_H
#define GATE_NATIVE_SPIN_H
#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void spin_ns(uint64_t ns) {
  uint64_t end = now_ns() + ns;
  while (now_ns() < end) {
  }
}
#endif
