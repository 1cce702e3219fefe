// shortwork: a held-back short workload (~0.3 s a run) for gate's units lab (issue 29).
//
// Eight declared functions, each called -rounds times a run with a fixed amount of work, none
// calling another declared function: CPU-bound loops (hashLoop, floatKernel, sortInts), map- and
// allocation-heavy code (mapBuild, mapLookup, allocTree, joinStrings) and a small fan-out
// (fanOut: 4 goroutines, waited for). See gate.yaml.
//
// The slowdown knob is compiled in, not given on the command line, so that a "head" is a
// different binary run with the same command, as a real change would be:
//
//	go build -ldflags "-X main.slow=hashLoop=1.25" -o head .
//
// multiplies hashLoop's own work (its iteration count) by 1.25; several "NAME=F" may be given,
// separated by commas; NAME may carry the "main." prefix.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// slow is set at link time (-X main.slow=NAME=FACTOR[,NAME=FACTOR]).
var slow string

var factors = map[string]float64{}

func parseSlow() {
	if slow == "" {
		return
	}
	for _, item := range strings.Split(slow, ",") {
		name, f, ok := strings.Cut(item, "=")
		x, err := strconv.ParseFloat(f, 64)
		if !ok || err != nil || x <= 0 {
			fmt.Fprintf(os.Stderr, "shortwork: -X main.slow=%q: %q is not NAME=FACTOR (factor > 0); "+
				"fix the -ldflags of the build, e.g. -X main.slow=hashLoop=1.25\n", slow, item)
			os.Exit(2)
		}
		factors[strings.TrimPrefix(name, "main.")] = x
	}
	for name := range factors {
		if !known[name] {
			fmt.Fprintf(os.Stderr, "shortwork: -X main.slow names %q, which is not one of the declared "+
				"functions (%s); fix the -ldflags of the build\n", name, strings.Join(names, ", "))
			os.Exit(2)
		}
	}
}

var names = []string{"hashLoop", "floatKernel", "sortInts", "mapBuild", "mapLookup", "allocTree", "joinStrings", "fanOut"}
var known = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}()

// work is n scaled by the function's slowdown factor (1 unless slowed).
func work(name string, n int) int {
	if f, ok := factors[name]; ok {
		return int(math.Round(float64(n) * f))
	}
	return n
}

var sink uint64

//go:noinline
func hashLoop(seed uint64, n int) uint64 {
	n = work("hashLoop", n)
	h := seed | 1
	for i := 0; i < n; i++ { // xorshift-multiply: a dependent chain, pure CPU
		h ^= h >> 33
		h *= 0xff51afd7ed558ccd
		h ^= h >> 29
		h += uint64(i)
	}
	return h
}

//go:noinline
func floatKernel(seed float64, n int) float64 {
	n = work("floatKernel", n)
	var v [16]float64
	for i := range v {
		v[i] = seed + float64(i)*0.01
	}
	s := 0.0
	for r := 0; r < n; r++ { // a small dense layer, repeated
		for i := 0; i < 16; i++ {
			a := 0.0
			for j := 0; j < 16; j++ {
				a += v[j] * float64((i*16+j)%7-3) * 0.05
			}
			v[i] = math.Tanh(a + v[i]*0.5)
		}
		s += v[r&15]
	}
	return s
}

//go:noinline
func sortInts(seed uint64, n int) int {
	n = work("sortInts", n)
	xs := make([]int, n)
	x := seed | 1
	for i := range xs {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		xs[i] = int(x % 1000003)
	}
	sort.Ints(xs)
	return xs[n/2]
}

//go:noinline
func mapBuild(seed int, n int) int {
	n = work("mapBuild", n)
	m := make(map[string]int) // grows: rehashes and allocations
	for i := 0; i < n; i++ {
		m["k"+strconv.Itoa(seed+i*7)] += i
	}
	return len(m)
}

var table = func() map[int]int {
	m := make(map[int]int, 1<<16)
	for i := 0; i < 1<<16; i++ {
		m[i*31] = i
	}
	return m
}()

//go:noinline
func mapLookup(seed int, n int) int {
	n = work("mapLookup", n)
	s := 0
	for i := 0; i < n; i++ {
		s += table[((seed+i*2654435761)&0xffff)*31]
	}
	return s
}

type node struct{ l, r *node }

func build(d int) *node {
	if d == 0 {
		return &node{}
	}
	return &node{build(d - 1), build(d - 1)}
}

func (n *node) count() int {
	if n.l == nil {
		return 1
	}
	return 1 + n.l.count() + n.r.count()
}

//go:noinline
func allocTree(trees int) int {
	trees = work("allocTree", trees)
	c := 0
	for i := 0; i < trees; i++ {
		c += build(10).count()
	}
	return c
}

//go:noinline
func joinStrings(seed int, n int) int {
	n = work("joinStrings", n)
	parts := make([]string, 0, 64)
	total := 0
	for i := 0; i < n; i++ {
		parts = parts[:0]
		for j := 0; j < 64; j++ {
			parts = append(parts, strconv.Itoa(seed+i*j))
		}
		total += len(strings.Join(parts, ","))
	}
	return total
}

// fanOut splits its work over 4 goroutines and waits for them (its time is the slowest one's).
//
//go:noinline
func fanOut(seed uint64, n int) uint64 {
	n = work("fanOut", n)
	var wg sync.WaitGroup
	out := make([]uint64, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			h := seed + uint64(w)
			for i := 0; i < n/4; i++ {
				h = h*6364136223846793005 + 1442695040888963407
				h ^= h >> 31
			}
			out[w] = h
		}(w)
	}
	wg.Wait()
	return out[0] ^ out[1] ^ out[2] ^ out[3]
}

func main() {
	rounds := flag.Int("rounds", 40, "calls of each function")
	scale := flag.Float64("scale", 1, "multiplies every function's work (a longer or shorter run)")
	times := flag.Bool("times", false, "print each function's total time on stderr (tuning aid)")
	flag.Parse()
	parseSlow()
	tot := make([]time.Duration, len(names))
	timed := func(i int, f func()) {
		t := time.Now()
		f()
		tot[i] += time.Since(t)
	}
	sc := func(n int) int { return int(math.Max(1, math.Round(float64(n)**scale))) }
	for r := 0; r < *rounds; r++ {
		s := uint64(r)
		timed(0, func() { sink += hashLoop(s, sc(320_000)) })
		timed(1, func() { sink += uint64(floatKernel(float64(r), sc(2_500))) })
		timed(2, func() { sink += uint64(sortInts(s, sc(6_000))) })
		timed(3, func() { sink += uint64(mapBuild(r, sc(2_500))) })
		timed(4, func() { sink += uint64(mapLookup(r, sc(20_000))) })
		timed(5, func() { sink += uint64(allocTree(sc(8))) })
		timed(6, func() { sink += uint64(joinStrings(r, sc(1_200))) })
		timed(7, func() { sink += fanOut(s, sc(800_000)) })
	}
	if *times {
		for i, n := range names {
			fmt.Fprintf(os.Stderr, "%-12s %8.1f ms total, %7.3f ms a call\n", n, float64(tot[i])/1e6, float64(tot[i])/1e6/float64(*rounds))
		}
	}
	if sink == 42 {
		fmt.Println("unlikely")
	}
}
