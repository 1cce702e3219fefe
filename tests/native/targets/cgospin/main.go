// cgospin: the native acceptance workload of issue 33. Go calls the C function native_spin (a
// 50 us busy-wait) -calls times, and sort_batch (C) -sorts times, which calls libc's qsort once.
// -callbacks N: C's call_back_into_go calls the exported Go function goSpin (Go -> C -> Go), N times.
package main

/*
#include <stdint.h>
void native_spin(uint64_t ns);
void sort_batch(int n, unsigned seed);
void call_back_into_go(int n);
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
