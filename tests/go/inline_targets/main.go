// Command inlinetargets is the Go program of gate's inlining tests (tests/analysis/inlining_test.cpp):
// small functions the compiler inlines at known call sites, each marked on its line with a
// comment "inline-site: NAME" that the test reads as the truth. Every caller is //go:noinline so
// that it is a function of its own with a stable name.
//
//	inlinetargets [-n N]
//
// runs every caller N times and prints "GATE_CALLS {...}" like tests/go/probetarget.
package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"gate.test/inlinetargets/geom"
)

// scale is inlined at 3 call sites, and it also has an out-of-line copy (a symbol) because its
// value is taken in main: a probe on it sees only the calls through that value.
func scale(x int) int { return keep(3*x + 1) }

// onlyInlined is inlined at both of its call sites and never referenced otherwise: the linker
// drops its out-of-line copy, so it has no symbol at all and only DWARF knows it.
func onlyInlined(x int) int { return keep(x ^ 0x5a) }

// Counter.Inc is a method inlined once (pointer receiver: "main.(*Counter).Inc").
type Counter struct{ n int }

func (c *Counter) Inc(by int) { c.n += keep(by) }

// keep is the call every inlined body makes: it leaves an instruction (the CALL) of each inlined
// copy in the caller's code, so that DWARF records every site (DWARF lists only inlined calls that
// left code; pure arithmetic can be folded away entirely).
//
//go:noinline
func keep(v int) int { return v }

//go:noinline
func callerA(x int) int {
	return scale(x) // inline-site: main.scale
}

//go:noinline
func callerB(x int) int {
	a := scale(x)                 // inline-site: main.scale
	b := scale(x + 1)             // inline-site: main.scale
	return a + b + onlyInlined(x) // inline-site: main.onlyInlined
}

//go:noinline
func callerC(w, h int) int {
	return geom.Area(w, h) + onlyInlined(h) // inline-site: gate.test/inlinetargets/geom.Area inline-site: main.onlyInlined
}

//go:noinline
func callerD(c *Counter, by int) {
	c.Inc(by) // inline-site: main.(*Counter).Inc
}

// notInlined is never inlined: it has a symbol and no inlined copy.
//
//go:noinline
func notInlined(x int) int { return x*x + 7 }

var viaValue = scale // takes scale's value: keeps its out-of-line copy

func main() {
	n := flag.Int("n", 10, "calls of each caller")
	flag.Parse()
	var c Counter
	s := 0
	for i := 0; i < *n; i++ {
		s += callerA(i) + callerB(i) + callerC(i, i+1) + notInlined(i) + viaValue(i)
		callerD(&c, i)
	}
	calls, _ := json.Marshal(map[string]int{"main.callerA": *n, "main.callerB": *n, "main.callerC": *n,
		"main.callerD": *n, "main.notInlined": *n, "main.scale": *n})
	fmt.Printf("GATE_CALLS %s\nGATE_SUM %d %d\n", calls, s, c.n)
}
