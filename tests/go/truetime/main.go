// Command truetime is the Go program of gate's true-time tests (tests/probe/truetime_test.cpp):
// parents that busy-wait a known time by their own clock and call k traced helpers, so that the
// compensated time, the self time and the descendant counts can be checked against the truth.
//
//	truetime -us D -children K -n N [-helper-us H] [-slow F]
//
// makes N calls of main.parent, each spinning D us of its own (times F, default 1) and calling
// main.helper K times (each helper spins H us, default 0); both spins are to a deadline on the
// monotonic clock, so their duration is set by the clock, not the CPU's speed. Prints
//
//	GATE_CALLS {"main.helper":..., "main.parent":...}
//	GATE_PARENT_NS {"p50":..., "mean":...}   a parent call's time by the program's own clock: its
//	                                         own spins plus its helpers' times (each timed inside
//	                                         the helper, so no probe's trap is in it)
//	GATE_SELF_NS {"p50":..., "mean":...}     its own spins only
//	GATE_HELPER_NS {"p50":..., "mean":...}
//	GATE_OUTER_NS {"p50":..., "mean":...}    a parent call timed around the call site (probes in it)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"sort"
	"time"
)

var (
	helperCalls int64
	parentCalls int64
	helperNs    []int64
	selfNs      []int64
	innerNs     []int64
)

// spin busy-waits until d has passed since t0.
func spin(t0 time.Time, d time.Duration) {
	for time.Since(t0) < d {
	}
}

//go:noinline
func helper(d time.Duration) time.Duration {
	t0 := time.Now()
	helperCalls++
	spin(t0, d)
	took := time.Since(t0)
	helperNs = append(helperNs, int64(took))
	return took
}

// parent spins d in total of its own time, split around its k helper calls.
//
//go:noinline
func parent(d time.Duration, k int, hd time.Duration) {
	parentCalls++
	own, helpers := time.Duration(0), time.Duration(0)
	part := d / time.Duration(k+1)
	for i := 0; i < k; i++ {
		s := time.Now()
		spin(s, part)
		own += time.Since(s)
		helpers += helper(hd)
	}
	s := time.Now()
	spin(s, d-own)
	own += time.Since(s)
	selfNs = append(selfNs, int64(own))
	innerNs = append(innerNs, int64(own+helpers))
}

func stats(v []int64) string {
	if len(v) == 0 {
		return `{"p50":0,"mean":0}`
	}
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum float64
	for _, x := range s {
		sum += float64(x)
	}
	b, _ := json.Marshal(map[string]float64{"p50": float64(s[len(s)/2]), "mean": sum / float64(len(s))})
	return string(b)
}

func main() {
	us := flag.Float64("us", 20, "own time of a parent call, us")
	children := flag.Int("children", 0, "helper calls per parent call")
	n := flag.Int("n", 200, "parent calls")
	helperUs := flag.Float64("helper-us", 0, "time of a helper call, us")
	slow := flag.Float64("slow", 1, "factor on the parent's own time")
	flag.Parse()
	d := time.Duration(*us * *slow * 1000)
	hd := time.Duration(*helperUs * 1000)
	parentNs := make([]int64, 0, *n)
	for i := 0; i < *n; i++ {
		t0 := time.Now()
		parent(d, *children, hd)
		parentNs = append(parentNs, int64(time.Since(t0)))
	}
	calls, _ := json.Marshal(map[string]int64{"main.helper": helperCalls, "main.parent": parentCalls})
	fmt.Printf("GATE_CALLS %s\n", calls)
	fmt.Printf("GATE_PARENT_NS %s\n", stats(innerNs))
	fmt.Printf("GATE_OUTER_NS %s\n", stats(parentNs))
	fmt.Printf("GATE_SELF_NS %s\n", stats(selfNs))
	fmt.Printf("GATE_HELPER_NS %s\n", stats(helperNs))
}
