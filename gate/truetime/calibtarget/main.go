// Command calibtarget is what gate traces to calibrate the probes' cost on a host
// (gate/truetime/calibration.cpp): two identical functions, one traced, one not, timed in
// alternating blocks by the program's own clock, so that the machine's speed swings hit both alike.
//
//	calibtarget -start FILE -blocks B -n N
//
// waits until FILE exists (gate creates it once the process is traced), then runs B blocks of
// N calls of main.probed and N calls of main.twin, alternating which goes first, and prints
//
//	GATE_CALIB_PROBED [ns per call of each probed block]
//	GATE_CALIB_TWIN [ns per call of each twin block]
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
func probed(i int) int { return helper(i) + 1 }

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
	p := make([]float64, 0, *blocks)
	t := make([]float64, 0, *blocks)
	for b := 0; b < *blocks; b++ {
		if b%2 == 0 {
			p = append(p, block(probed, *n))
			t = append(t, block(twin, *n))
		} else {
			t = append(t, block(twin, *n))
			p = append(p, block(probed, *n))
		}
	}
	pj, _ := json.Marshal(p)
	tj, _ := json.Marshal(t)
	fmt.Printf("GATE_CALIB_PROBED %s\nGATE_CALIB_TWIN %s\n", pj, tj)
}
