/* cprog: a C program (no Go) that gate's native tests run as the workload binary. Each mode calls
 * functions a known number of times:
 *   cprog spin N US        native_spin(US) N times (a busy-wait to a deadline on the clock)
 *   cprog recurse N D      rec_depth(D) N times: N*(D+1) calls of rec_depth, nested D deep
 *   cprog longjmp N        lj_victim N times; every odd call leaves by longjmp (never returns)
 *   cprog lib N            lib_work (libgatework.so, linked) N times
 *   cprog dlopen N MS      sleeps MS ms, then dlopen()s libgateplugin.so and calls plugin_work N times
 *   cprog qsort N          qsort (libc) N times, through sort_some
 *   cprog tops N           loop_top and straight_top (cet.c) N times each
 *   cprog bench N leaf|frame|cet   tiny_leaf (first instruction a mov: single-stepped by a uprobe),
 *                          tiny_frame (a push: emulated) or tiny_cet (endbr64, then a push) N times; prints GATE_LOOP_NS, the loop's
 *                          time by the program's own clock (tests/bench/bench_native) */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spin.h"

int lib_work(int n);

__attribute__((noinline)) void native_spin(uint64_t ns) { spin_ns(ns); }

volatile int sink;

__attribute__((noinline)) int rec_depth(int d) {
  native_spin(2000);
  if (d == 0) return 1;
  int r = rec_depth(d - 1) + 1;
  sink = r;
  return r;
}

static jmp_buf env;

__attribute__((noinline)) void lj_victim(int jump) {
  native_spin(5000);
  if (jump) longjmp(env, 1);
  sink++;
}

static int cmp_int(const void* a, const void* b) {
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_some(int n) {
  int v[256];
  for (int i = 0; i < n; i++) v[i] = (i * 7919) % 1000;
  qsort(v, n, sizeof v[0], cmp_int);
}

__attribute__((noinline)) int tiny_leaf(int x) {
  sink += x;
  return x + 1;
}

int (*volatile leaf_ptr)(int) = tiny_leaf;
int tiny_cet(int x); /* cet.c */
int loop_top(void), straight_top(void); /* cet.c: entry-shift cases */ /* opaque to the compiler's register allocation */

__attribute__((noinline)) int tiny_frame(int x) {
  int y = leaf_ptr(x);
  int z = leaf_ptr(y);
  return x + y + z; /* x and y live across calls: callee-saved registers, pushed first */
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cprog spin|recurse|longjmp|lib|dlopen|qsort N [ARG]\n");
    return 2;
  }
  const char* mode = argv[1];
  int n = atoi(argv[2]);
  int arg = argc > 3 ? atoi(argv[3]) : 0;
  if (!strcmp(mode, "spin")) {
    for (int i = 0; i < n; i++) native_spin((uint64_t)arg * 1000);
  } else if (!strcmp(mode, "recurse")) {
    for (int i = 0; i < n; i++) rec_depth(arg);
  } else if (!strcmp(mode, "longjmp")) {
    for (volatile int i = 0; i < n; i++)
      if (!setjmp(env)) lj_victim(i % 2);
  } else if (!strcmp(mode, "lib")) {
    for (int i = 0; i < n; i++) sink = lib_work(i);
  } else if (!strcmp(mode, "dlopen")) {
    struct timespec ts = {arg / 1000, (long)(arg % 1000) * 1000000};
    nanosleep(&ts, NULL);
    void* h = dlopen("libgateplugin.so", RTLD_NOW);
    if (!h) {
      fprintf(stderr, "dlopen: %s\n", dlerror());
      return 1;
    }
    int (*work)(int) = (int (*)(int))dlsym(h, "plugin_work");
    for (int i = 0; i < n; i++) sink = work(i);
    dlclose(h);
  } else if (!strcmp(mode, "bench")) {
    const char* which = argc > 3 ? argv[3] : "leaf";
    int (*fn)(int) = !strcmp(which, "frame") ? tiny_frame : !strcmp(which, "cet") ? tiny_cet : tiny_leaf;
    uint64_t t0 = now_ns();
    for (int i = 0; i < n; i++) sink = fn(i);
    printf("GATE_LOOP_NS %llu\n", (unsigned long long)(now_ns() - t0));
  } else if (!strcmp(mode, "tops")) {
    for (int i = 0; i < n; i++) sink = loop_top() + straight_top();
  } else if (!strcmp(mode, "qsort")) {
    for (int i = 0; i < n; i++) sort_some(200);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  printf("done %s %d\n", mode, n);
  return 0;
}
