// layoutsens: functions whose speed may depend on where the linker puts code (issue 29), for
// tests/bench/layout_spread.sh (same source, builds with -ldflags=-randlayout=SEED) and for
// tests/bench/units_lab.py --workload layoutsens (gate ab over layout variants).
//
//	layoutsens                       the gate workload: -calls calls of each candidate (gate.yaml)
//	layoutsens -bench -reps 15       per candidate: median ns per call over reps timed repeats
//
// Candidates (each //go:noinline, main package):
//   - dispatch: a bytecode loop calling one of 32 small opcode functions through a table (an
//     indirect call a step; the targets' addresses, and so their branch-predictor and uop-cache
//     slots, move with the layout);
//   - interp: the same opcodes inline in one switch (a jump table inside one function);
//   - chain: direct calls to the 32 opcode functions in a fixed order;
//   - tight: a short loop with a data-dependent branch (its alignment mod 64 moves).
//
// The slowdown knob is compiled in as in shortwork: -ldflags "-X main.slow=dispatch=1.25"
// multiplies that function's own work (its rounds) by the factor.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

type state struct{ a, b, c uint64 }

var slow string // -X main.slow=NAME=FACTOR[,NAME=FACTOR]

var factors = map[string]float64{}

var names = []string{"dispatch", "interp", "chain", "tight"}

func parseSlow() {
	if slow == "" {
		return
	}
	for _, item := range strings.Split(slow, ",") {
		name, f, ok := strings.Cut(item, "=")
		x, err := strconv.ParseFloat(f, 64)
		name = strings.TrimPrefix(name, "main.")
		known := false
		for _, n := range names {
			known = known || n == name
		}
		if !ok || err != nil || x <= 0 || !known {
			fmt.Fprintf(os.Stderr, "layoutsens: -X main.slow=%q: %q is not NAME=FACTOR with NAME one of %s and "+
				"FACTOR > 0; fix the -ldflags of the build, e.g. -X main.slow=dispatch=1.25\n",
				slow, item, strings.Join(names, ", "))
			os.Exit(2)
		}
		factors[name] = x
	}
}

func work(name string, n int) int {
	if f, ok := factors[name]; ok {
		return int(math.Round(float64(n) * f))
	}
	return n
}

// prog: 2,048 opcodes, a repeating pattern with noise, so that branch predictors with long
// histories partly learn it (and their tables' aliasing matters).
var prog = func() []uint8 {
	p := make([]uint8, 2048)
	x := uint32(12345)
	for i := range p {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		if i%8 < 6 {
			p[i] = uint8((i*7 + i/64) % 32)
		} else {
			p[i] = uint8(x % 32)
		}
	}
	return p
}()

//go:noinline
func dispatch(s *state, rounds int) {
	rounds = work("dispatch", rounds)
	if slowDispatchCode {
		rounds = rounds * 5 / 4
	}
	for r := 0; r < rounds; r++ {
		for _, op := range prog {
			ops[op&31](s)
		}
	}
}

//go:noinline
func runInterp(s *state, rounds int) { interp(s, prog, work("interp", rounds)) }

//go:noinline
func chain(s *state, rounds int) {
	rounds = work("chain", rounds)
	for r := 0; r < rounds*64; r++ {
		op00(s)
		op01(s)
		op02(s)
		op03(s)
		op04(s)
		op05(s)
		op06(s)
		op07(s)
		op08(s)
		op09(s)
		op10(s)
		op11(s)
		op12(s)
		op13(s)
		op14(s)
		op15(s)
		op16(s)
		op17(s)
		op18(s)
		op19(s)
		op20(s)
		op21(s)
		op22(s)
		op23(s)
		op24(s)
		op25(s)
		op26(s)
		op27(s)
		op28(s)
		op29(s)
		op30(s)
		op31(s)
	}
}

var data = func() []uint32 {
	d := make([]uint32, 4096)
	x := uint32(777)
	for i := range d {
		x = x*1664525 + 1013904223
		d[i] = x >> 8
	}
	return d
}()

//go:noinline
func tight(s *state, rounds int) {
	rounds = work("tight", rounds)
	var acc uint64
	for r := 0; r < rounds*8; r++ {
		for i, v := range data {
			if v&(1<<uint(i&15)) != 0 {
				acc += uint64(v)
			} else {
				acc ^= uint64(i)
			}
		}
	}
	s.a += acc
}

var funcs = []func(*state, int){dispatch, runInterp, chain, tight}

func main() {
	calls := flag.Int("calls", 60, "workload: calls of each function")
	rounds := flag.Int("rounds", 4, "rounds of the program per call (work per call)")
	bench := flag.Bool("bench", false, "time each function by its own clock instead; prints NAME MEDIAN_NS MIN_NS per line")
	reps := flag.Int("reps", 15, "bench: timed repeats per function (median and min reported)")
	ms := flag.Int("ms", 20, "bench: milliseconds a repeat, at least")
	only := flag.String("only", "", "bench: only this function")
	flag.Parse()
	parseSlow()
	s := &state{a: 1, b: 2}
	if !*bench {
		for c := 0; c < *calls; c++ {
			for _, f := range funcs {
				f(s, *rounds)
			}
		}
		if s.c == 42 {
			fmt.Println("unlikely")
		}
		return
	}
	for i, f := range funcs {
		if *only != "" && *only != names[i] {
			continue
		}
		f(s, *rounds) // warm
		per := make([]float64, 0, *reps)
		for r := 0; r < *reps; r++ {
			n := 0
			t := time.Now()
			for time.Since(t) < time.Duration(*ms)*time.Millisecond {
				f(s, *rounds)
				n++
			}
			per = append(per, float64(time.Since(t).Nanoseconds())/float64(n))
		}
		sort.Float64s(per)
		fmt.Printf("%s %.0f %.0f\n", names[i], per[len(per)/2], per[0])
	}
}
