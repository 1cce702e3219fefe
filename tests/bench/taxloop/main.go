// The 2,000-step tax loop of tests/bench/pre_merge_scenario.sh's branch, timed bare (no gate).
package main

import (
	"fmt"
	"os"
	"sort"
	"time"
)

type Cents int64

//go:noinline
func loop(net, permille Cents) Cents {
	var r Cents
	for i := Cents(0); i < 2000; i++ {
		r = (r*31 + net*permille + i) * (permille | 1) * (net | 1)
	}
	return r
}

func main() {
	net, permille := Cents(len(os.Args)*12345), Cents(190)
	var meds []float64
	var sink Cents
	for rep := 0; rep < 15; rep++ {
		const n = 20000
		t := time.Now()
		for k := 0; k < n; k++ {
			sink += loop(net+Cents(k&7), permille)
		}
		meds = append(meds, float64(time.Since(t).Nanoseconds())/n)
	}
	sort.Float64s(meds)
	fmt.Printf("the 2,000-step loop: median %.2f us a call over 15 reps of 20000 calls (min %.2f, max %.2f) %d\n", meds[7]/1e3, meds[0]/1e3, meds[14]/1e3, sink&1)
}
