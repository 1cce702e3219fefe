/* libgateplugin.so: a plugin cprog opens with dlopen() after it started (never linked). */
#include <stdint.h>
#include <time.h>

__attribute__((noinline)) int plugin_work(int n) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t end = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 10000;
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec >= end) break;
  }
  return n * 2;
}
