/* The C side of cgospin (a file of its own: a cgo preamble with //export may only declare). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../spin.h"

// A busy-wait to a deadline on the clock: its time is set by the clock, not by the CPU's speed.
__attribute__((noinline)) void native_spin(uint64_t ns) { spin_ns(ns); }

static int cmp_int(const void* a, const void* b) {
	int x = *(const int*)a, y = *(const int*)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_batch(int n, unsigned seed) {
	int* v = malloc(sizeof(int) * n);
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (int)(seed >> 8);
	}
	qsort(v, n, sizeof(int), cmp_int);
	free(v);
}

#include "_cgo_export.h"

__attribute__((noinline)) void call_back_into_go(int n) {
	native_spin(20000);
	goSpin(n);
	native_spin(20000);
}
