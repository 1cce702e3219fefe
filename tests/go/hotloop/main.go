// hotloop: the acceptance workload of issue 39 ("measure the code, not the probes").
//
// One hot function, hot, of ~2 us own CPU time (a dependent multiply-xorshift chain over a 2 KiB
// buffer: no allocation, no syscall, not inlined), called -calls times (default 100,000) per
// execution, and six other non-inlined CPU functions called -others times each (default 200), so
// that gate's speed normalization has >= 5 functions with calls in every run. A fixed amount of
// work (counts, not a duration). bench_test.go has BenchmarkHot (hot alone) and BenchmarkRound.
//
// The head: `go build -tags gateslow8` (work_slow8.go) makes hot's loop run 1080 rounds instead of
// 1000; nothing else changes. Measured by the program's own clock: ratio.sh (both binaries built
// by Go 1.27.4, on one CPU, taking turns batch by batch, -selftime-paired: 500 batches of 2,000
// calls each by the thread's CPU clock), 5 runs side by side, medians; on the 2-vCPU KVM guest with
// a build running beside it (load average 6):
//
//	$ tests/go/hotloop/ratio.sh
//	run 1: base 2148.2 ns/call, head 2313.7 ns/call (medians of 500 batches), head/base 1.0758
//	run 2: base 2100.8 ns/call, head 2264.4 ns/call (medians of 500 batches), head/base 1.0760
//	run 3: base 2118.9 ns/call, head 2277.3 ns/call (medians of 500 batches), head/base 1.0808
//	run 4: base 2125.2 ns/call, head 2305.6 ns/call (medians of 500 batches), head/base 1.0776
//	run 5: base 2104.1 ns/call, head 2280.6 ns/call (medians of 500 batches), head/base 1.0903
//	head/base, median of 5 runs: 1.0776
//
// (Timed by the wall clock instead, and not taking turns, 5 runs each under the same load read
// 0.99-1.11 between runs: the host's speed swings, not the code.)
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

var buf [256]uint64 // hot's input: 2 KiB, in L1

func init() {
	x := uint64(0x9e3779b97f4a7c15)
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = x
	}
}

var sink uint64

// hot mixes hotRounds words of buf into a 64-bit state: a dependent chain, so its time is its own
// work (hotRounds) and not the memory system's.
//
//go:noinline
func hot(seed uint64) uint64 {
	h := seed | 1
	for i := 0; i < hotRounds; i++ {
		h ^= buf[i&255]
		h *= 0xff51afd7ed558ccd
		h ^= h >> 29
	}
	return h
}

// The others: stable CPU loops of ~50-300 us, no allocation.

//go:noinline
func fnvLoop(seed uint64) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for r := 0; r < 32; r++ {
		for i := 0; i < 256; i++ {
			h ^= buf[i] & 0xff
			h *= 1099511628211
		}
	}
	return h
}

//go:noinline
func floatMix(seed float64) float64 {
	a, b := seed*1e-9+0.5, 0.25
	for i := 0; i < 4_000; i++ {
		a = a*0.999 + b*0.001
		b = math.Sqrt(a*a+b*b) * 0.7071
	}
	return a + b
}

var primes [65536]bool

//go:noinline
func sieve(n int) int {
	if n > len(primes) {
		n = len(primes)
	}
	for i := range primes[:n] {
		primes[i] = true
	}
	c := 0
	for i := 2; i < n; i++ {
		if !primes[i] {
			continue
		}
		c++
		for j := i * i; j < n; j += i {
			primes[j] = false
		}
	}
	return c
}

var ma, mb, mc [24][24]float64

//go:noinline
func matMul(seed float64) float64 {
	for i := 0; i < 24; i++ {
		for j := 0; j < 24; j++ {
			ma[i][j] = seed + float64(i-j)*0.01
			mb[i][j] = float64(i+j) * 0.02
		}
	}
	for i := 0; i < 24; i++ {
		for j := 0; j < 24; j++ {
			s := 0.0
			for k := 0; k < 24; k++ {
				s += ma[i][k] * mb[k][j]
			}
			mc[i][j] = s
		}
	}
	return mc[seed2i(seed)][3]
}

func seed2i(s float64) int { return int(math.Abs(s)) % 24 }

//go:noinline
func popLoop(seed uint64) int {
	c := 0
	x := seed | 1
	for i := 0; i < 3_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		for y := x; y != 0; y &= y - 1 {
			c++
		}
	}
	return c
}

var words [4096]uint32

//go:noinline
func insertionSort(seed uint32) uint32 {
	w := words[:256]
	x := seed | 1
	for i := range w {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		w[i] = x
	}
	for i := 1; i < len(w); i++ {
		v := w[i]
		j := i - 1
		for j >= 0 && w[j] > v {
			w[j+1] = w[j]
			j--
		}
		w[j+1] = v
	}
	return w[len(w)/2]
}

// round: one call of every other function (BenchmarkRound, and main's rounds).
func round(r int) {
	s := uint64(r)
	sink += fnvLoop(s)
	sink += uint64(floatMix(float64(r)))
	sink += uint64(sieve(40_000))
	sink += uint64(matMul(float64(r)))
	sink += uint64(popLoop(s))
	sink += uint64(insertionSort(uint32(r)))
}

// selftime: hot's own time per call by this program's clock, the fastest of `batches` batches of
// `n` calls (the fastest: the host's slow phases and preemptions only ever add time).
func selftime(batches, n int) float64 {
	best := math.Inf(1)
	for b := 0; b < batches; b++ {
		t := time.Now()
		for i := 0; i < n; i++ {
			sink += hot(uint64(i))
		}
		if d := float64(time.Since(t).Nanoseconds()) / float64(n); d < best {
			best = d
		}
	}
	return best
}

// threadCPU: this thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID): the time other processes
// hold the CPU is not in it.
func threadCPU() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(e)
	}
	return ts.Nano()
}

// selftimePaired: hot's CPU time per call, taking turns with another process (the other side's
// binary) through two FIFOs: wait for a byte on in, time one batch by this thread's CPU clock,
// write a byte to out. Consecutive batches of the two binaries then meet the same machine (its
// speed swings last 0.1-1 s), and neither counts the time the other processes hold the CPU;
// prints each batch's ns per call, one a line.
func selftimePaired(in, out string, batches, n int) error {
	runtime.LockOSThread() // threadCPU reads this thread's clock
	r, err := os.OpenFile(in, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	w, err := os.OpenFile(out, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	times := make([]float64, 0, batches)
	one := []byte{1}
	for b := 0; b < batches; b++ {
		if _, err := r.Read(one); err != nil {
			return err
		}
		t := threadCPU()
		for i := 0; i < n; i++ {
			sink += hot(uint64(i))
		}
		times = append(times, float64(threadCPU()-t)/float64(n))
		if _, err := w.Write(one); err != nil {
			return err
		}
	}
	for _, t := range times {
		fmt.Printf("%.1f\n", t)
	}
	return nil
}

func main() {
	calls := flag.Int("calls", 100_000, "calls of hot per execution")
	others := flag.Int("others", 200, "calls of each other function per execution")
	self := flag.Bool("selftime", false, "print hot's ns per call by this program's clock (fastest of 100 batches of 5,000 calls) and exit")
	paired := flag.String("selftime-paired", "", "IN:OUT: -selftime taking turns with another process through two FIFOs (ratio.sh); prints every batch's ns per call")
	times := flag.Bool("times", false, "print each part's total time on stderr (tuning aid)")
	flag.Parse()
	if *calls < 0 || *others < 0 {
		fmt.Fprintln(os.Stderr, "hotloop: -calls and -others must be >= 0")
		os.Exit(2)
	}
	if *paired != "" {
		in, out, ok := strings.Cut(*paired, ":")
		if !ok {
			fmt.Fprintln(os.Stderr, "hotloop: -selftime-paired takes IN:OUT (two FIFO paths)")
			os.Exit(2)
		}
		if err := selftimePaired(in, out, 500, 2_000); err != nil {
			fmt.Fprintln(os.Stderr, "hotloop: -selftime-paired:", err)
			os.Exit(1)
		}
		return
	}
	if *self {
		fmt.Printf("hot %.1f ns/call (rounds %d)\n", selftime(100, 5_000), hotRounds)
		return
	}
	// Interleaved: every `every` calls of hot, one round of the others, so that every part of the
	// execution sees the same machine.
	t0 := time.Now()
	var tHot, tOthers time.Duration
	every := 1
	if *others > 0 {
		every = int(math.Max(1, float64(*calls)/float64(*others)))
	}
	done := 0
	for r := 0; r < *others || done < *calls; r++ {
		t := time.Now()
		for i := 0; i < every && done < *calls; i++ {
			sink += hot(uint64(done))
			done++
		}
		tHot += time.Since(t)
		if r < *others {
			t = time.Now()
			round(r)
			tOthers += time.Since(t)
		}
	}
	if *times {
		ts := []string{fmt.Sprintf("hot %.0f ms (%.0f ns a call)", float64(tHot)/1e6, float64(tHot)/float64(max1(*calls))),
			fmt.Sprintf("others %.0f ms", float64(tOthers)/1e6), fmt.Sprintf("total %.0f ms", float64(time.Since(t0))/1e6)}
		sort.Strings(ts)
		fmt.Fprintln(os.Stderr, ts)
	}
	if sink == 42 {
		fmt.Println("unlikely")
	}
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}
