// Command calibtarget is what gate traces to calibrate the probes' cost on a host
// (gate/truetime/calibration.cpp): four identical functions, traced in three different ways by
// gate (main.jump: entry jump + RET; main.ret: RET only; main.first: first instruction + RET) and
// one untraced (main.twin), timed in interleaved blocks by the program's own clock, so that the
// machine's speed swings hit all four alike.
//
//	calibtarget -start FILE -blocks B -n N
//
// waits until FILE exists (gate creates it once the process is traced), then runs B rounds of
// one block of N calls of each function, in an order that rotates, and prints per function
//
//	GATE_CALIB {"jump":[ns per call of each block],"ret":[...],"first":[...],"twin":[...]}
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

var sink int

// helper keeps probed and twin from being frameless leaves: both get the stack-check prologue
// (cmp; jbe morestack) that gate probes on its jump, like most Go functions.
//
//go:noinline
func helper(i int) int { return i*2654435761 ^ i>>7 }

//go:noinline
func jump(i int) int { return helper(i) + 1 }

//go:noinline
func ret(i int) int { return helper(i) + 1 }

//go:noinline
func first(i int) int { return helper(i) + 1 }

//go:noinline
func twin(i int) int { return helper(i) + 1 }

func block(f func(int) int, n int) float64 {
	t0 := time.Now()
	s := 0
	for i := 0; i < n; i++ {
		s += f(i)
	}
	sink += s
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}

func main() {
	start := flag.String("start", "", "wait until this file exists")
	blocks := flag.Int("blocks", 40, "blocks of each function")
	n := flag.Int("n", 100, "calls per block")
	flag.Parse()
	for *start != "" {
		if _, err := os.Stat(*start); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	names := []string{"jump", "ret", "first", "twin"}
	funcs := []func(int) int{jump, ret, first, twin}
	out := map[string][]float64{}
	for b := 0; b < *blocks; b++ {
		for k := range funcs {
			i := (b + k) % len(funcs)
			out[names[i]] = append(out[names[i]], block(funcs[i], *n))
		}
	}
	j, _ := json.Marshal(out)
	fmt.Printf("GATE_CALIB %s\n", j)
}
