// cgospin: the native acceptance workload of issue 33. Go calls the C function native_spin (a
// 50 us busy-wait) -calls times, and sort_batch (C) -sorts times, which calls libc's qsort once.
// -callbacks N: C's call_back_into_go calls the exported Go function goSpin (Go -> C -> Go), N times.
package main

/*
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// A busy-wait to a deadline on the clock: its time is set by the clock, not by the CPU's speed.
__attribute__((noinline)) void native_spin(uint64_t ns) {
	uint64_t end = now_ns() + ns;
	while (now_ns() < end) {
	}
}

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

extern void goSpin(int);

__attribute__((noinline)) void call_back_into_go(int n) {
	native_spin(20000);
	goSpin(n);
	native_spin(20000);
}
*/
import "C"

import (
	"flag"
	"fmt"
	"time"
)

//export goSpin
func goSpin(n C.int) {
	spinGo(time.Duration(n) * time.Microsecond)
}

//go:noinline
func spinGo(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
	}
}

func main() {
	calls := flag.Int("calls", 1000, "native_spin calls")
	sorts := flag.Int("sorts", 300, "sort_batch calls (one qsort each)")
	callbacks := flag.Int("callbacks", 0, "call_back_into_go calls (C -> Go -> back)")
	spin := flag.Duration("spin", 50*time.Microsecond, "native_spin's busy-wait")
	flag.Parse()
	for i := 0; i < *calls; i++ {
		C.native_spin(C.uint64_t(spin.Nanoseconds()))
	}
	for i := 0; i < *sorts; i++ {
		C.sort_batch(200, C.uint(i))
	}
	for i := 0; i < *callbacks; i++ {
		C.call_back_into_go(30)
	}
	fmt.Println("done", *calls, *sorts, *callbacks)
}
