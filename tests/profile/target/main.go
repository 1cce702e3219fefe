// Command profiletarget is the Go program of gate's CPU-profile accuracy tests
// (tests/profile/accuracy_test.cpp): it burns CPU in known proportions so that a profile's shares
// can be checked against the work each function was given.
//
//	profiletarget -mode shares -cpuseconds S [-cpuprofile FILE]
//	    burn30, burn10, burn2 and rest do 30, 10, 2 and 58 units of one identical loop per round
//	    (mix, inlined into each): their shares of the CPU are 30%, 10%, 2% and 58%.
//	profiletarget -mode leaf -cpuseconds S
//	    callerThree and callerOne call the frameless leaf with 3 and 1 units: the leaf's time
//	    splits 75/25 between them.
//	profiletarget -mode children -cpuseconds S [-double N]
//	    parent calls childA, childB and childC, 10 units each; -double N: childB does N times that.
//
// Every mode runs on GOMAXPROCS goroutines until the process has used S seconds of CPU (so that a
// busy machine gives as many samples as an idle one, only later), or -rounds N rounds, and prints "GATE_ROUNDS N" and
// "GATE_CPU_SECONDS X" at the end.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
)

const unit = 2000 // xorshift rounds per unit of work (~2-3 us here)

// mix is the loop every burner runs; small enough that the compiler inlines it into each.
func mix(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func burn30(x uint64) uint64 { return mix(x, burn30Units*unit) }

//go:noinline
func burn10(x uint64) uint64 { return mix(x, 10*unit) }

//go:noinline
func burn2(x uint64) uint64 { return mix(x, 2*unit) }

//go:noinline
func rest(x uint64) uint64 { return mix(x, 58*unit) }

// leaf has no frame (no locals, no calls): Go sets up no frame pointer for it, so a frame-pointer
// walk from inside it skips its caller. Its loop is mix's on purpose, kept out of line: calling
// mix would give it a frame.
//
//go:noinline
func leaf(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func callerThree(x uint64) uint64 { return leaf(x, 3*10*unit) }

//go:noinline
func callerOne(x uint64) uint64 { return leaf(x, 1*10*unit) }

var sink atomic.Uint64

func main() {
	mode := flag.String("mode", "shares", "shares, leaf or children")
	cpuSeconds := flag.Float64("cpuseconds", 5, "CPU time to burn (user + system, all threads)")
	maxRounds := flag.Int64("rounds", 0, "stop after this many rounds instead (a fixed amount of work: for timing)")
	cpuprofile := flag.String("cpuprofile", "", "also write Go's own CPU profile (runtime/pprof) here")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	round := func(x uint64) uint64 { return rest(burn2(burn10(burn30(x)))) }
	if *mode == "leaf" {
		round = func(x uint64) uint64 { return callerOne(callerThree(x)) }
	} else if *mode == "children" {
		round = childrenRound
	} else if *mode != "shares" {
		fmt.Fprintln(os.Stderr, "unknown -mode", *mode)
		os.Exit(2)
	}
	var done atomic.Bool
	var rounds atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < runtime.GOMAXPROCS(0); g++ {
		wg.Add(1)
		go func(x uint64) {
			defer wg.Done()
			for !done.Load() {
				x = round(x)
				n := rounds.Add(1)
				if *maxRounds > 0 {
					if n >= *maxRounds {
						done.Store(true)
					}
				} else if n%16 == 0 && cpuTime() >= *cpuSeconds {
					done.Store(true)
				}
			}
			sink.Add(x)
		}(uint64(g) + 88172645463325252)
	}
	wg.Wait()
	fmt.Printf("GATE_ROUNDS %d\nGATE_CPU_SECONDS %.4f\n", rounds.Load(), cpuTime())
}

// cpuTime is the process's CPU time so far, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
