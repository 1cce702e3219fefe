// Command args is the Go program gate's latency-by-argument tests trace: functions whose
// arguments are strings, slices, integers, pointers, a method receiver and a generic, called
// with known values so that the tests know how many calls land in each bucket.
//
//	args counts          the fixed call mix of callMix (exact counts per bucket)
//	args payload N       N rounds of Encode over 200 B, 2 KiB and 32 KiB payloads, each call with
//	                     a fixed base cost; ARGS_SLOW=F makes the payload part F times slower for
//	                     payloads of 16 KiB and more only
package main

import (
	"fmt"
	"os"
	"strconv"
)

type Item struct {
	ID   int
	Name string
}

type Store struct{ items map[string]int }

var sink int

//go:noinline
func Encode(b []byte) int {
	n := 0
	for i := 0; i < baseWork; i++ { // payload mode: a fixed cost well above the probes' own
		n += i ^ len(b)
	}
	for _, c := range b {
		n += int(c)
	}
	if slowFactor > 1 && len(b) >= 16<<10 {
		for i := 1; i < int(slowFactor); i++ { // ARGS_SLOW=3: two more passes, about 3x the time
			for _, c := range b {
				n += int(c) ^ i
			}
		}
	}
	return n
}

//go:noinline
func Lookup(key string) int { return len(key) + sink }

//go:noinline
func Count(n int) int { return n*2 + sink }

//go:noinline
func Small(a int8, u uint16, ok bool) int {
	if ok {
		return int(a) + int(u)
	}
	return int(a) - int(u)
}

//go:noinline
func Describe(p *Item) int {
	if p == nil {
		return -1
	}
	return p.ID
}

//go:noinline
func ByValue(it Item) int { return it.ID }

//go:noinline
func (s *Store) Get(key string) int { return s.items[key] + len(key) }

//go:noinline
func Sum[T int | float64](xs []T) T {
	var t T
	for _, x := range xs {
		t += x
	}
	return t
}

//go:noinline
func MapLen(m map[string]int) int { return len(m) + sink }

//go:noinline
func ChanLen(c chan int) int { return cap(c) + sink }

var slowFactor float64

// baseWork: iterations of fixed work per Encode call in payload mode, so that even the smallest
// payload's call takes far longer than the probes cost (a call near the probes' cost is timed
// near 0 ns once true time subtracts them, and its p50 is noise).
var baseWork int

func repeat(n int, f func()) {
	for i := 0; i < n; i++ {
		f()
	}
}

// callMix: the counts the exact-count tests expect, by function and argument value.
func callMix() {
	repeat(10, func() { sink += Encode(make([]byte, 100)) })
	repeat(20, func() { sink += Encode(make([]byte, 2000)) })
	repeat(30, func() { sink += Encode(make([]byte, 8000)) })
	repeat(40, func() { sink += Encode(make([]byte, 20000)) })
	repeat(7, func() { sink += Lookup("abcde") })
	repeat(11, func() { sink += Lookup(string(make([]byte, 20))) })
	repeat(13, func() { sink += Lookup(string(make([]byte, 100))) })
	for _, v := range []struct{ n, times int }{{-5, 3}, {5, 4}, {50, 6}, {500, 8}, {5000, 9}} {
		v := v
		repeat(v.times, func() { sink += Count(v.n) })
	}
	repeat(5, func() { sink += Small(-3, 7, true) })
	repeat(6, func() { sink += Small(100, 60000, false) })
	repeat(4, func() { sink += Describe(nil) })
	repeat(6, func() { sink += Describe(&Item{ID: 1}) })
	sink += ByValue(Item{ID: 2})
	s := &Store{items: map[string]int{"k": 1}}
	repeat(3, func() { sink += s.Get("k") })
	repeat(5, func() { sink += s.Get(string(make([]byte, 40))) })
	repeat(2, func() { sink += (*Store)(nil).GetNilSafe() })
	repeat(9, func() { sink += Sum(make([]int, 3)) })
	repeat(12, func() { sink += Sum(make([]int, 300)) })
	sink += int(Sum([]float64{1.5}))
	m := map[string]int{}
	repeat(2, func() { sink += MapLen(m) })
	for i := 0; i < 50; i++ {
		m[strconv.Itoa(i)] = i
	}
	repeat(3, func() { sink += MapLen(m) })
	repeat(4, func() { sink += MapLen(nil) })
	c := make(chan int, 10)
	repeat(2, func() { sink += ChanLen(c) })
	for i := 0; i < 5; i++ {
		c <- i
	}
	repeat(3, func() { sink += ChanLen(c) })
}

//go:noinline
func (s *Store) GetNilSafe() int {
	if s == nil {
		return 0
	}
	return len(s.items)
}

func main() {
	if f, err := strconv.ParseFloat(os.Getenv("ARGS_SLOW"), 64); err == nil {
		slowFactor = f
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: args counts | args payload N")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "counts":
		callMix()
	case "payload":
		n, _ := strconv.Atoi(os.Args[2])
		baseWork = 20000
		small, mid, big := make([]byte, 200), make([]byte, 2<<10), make([]byte, 32<<10)
		for i := 0; i < n; i++ {
			sink += Encode(small) + Encode(mid) + Encode(big)
		}
	}
	fmt.Println("done", sink&1)
}
