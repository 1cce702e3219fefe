// Command noiseloop measures how fast this machine is, moment to moment: it hashes 4 KiB with
// SHA-256 (or, with -kernel fp, runs 100 rounds of a small floating-point network) in a loop and
// prints, for every window of -window, the mean time per unit of work in ns.
// The noise lab (tests/bench/noise_lab.py) runs it to find the size and timescale of the swings.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"time"
)

// fpWeights: the shop's fraudWeights (examples/shop/cart.go), on purpose: with them the network
// settles at a fixed point of ordinary numbers. Other weights tried here decayed to subnormals, whose
// slow arithmetic times something else.
var fpWeights = func() (w [16][16]float64) {
	seed := uint64(0x9e3779b97f4a7c15)
	for i := range w {
		for j := range w[i] {
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			w[i][j] = float64(int64(seed%2001)-1000) / 4000
		}
	}
	return w
}()

// fpStep is one round of a small dense network (dependent scalar multiply-adds), the shape of
// the shop's authorize(): floating-point work, where the SHA-256 kernel (SHA extensions on most
// x86 CPUs) is integer work.
func fpStep(x *[16]float64) {
	var y [16]float64
	for i := range y {
		s := 0.0
		for j := range x {
			s += fpWeights[i][j] * x[j]
		}
		if s < 0 {
			s *= 0.01
		}
		y[i] = s
	}
	norm := 0.0
	for i := range y {
		norm += y[i] * y[i]
	}
	norm = 1 / (1 + norm)
	for i := range x {
		x[i] = y[i]*norm + x[i]*0.5
	}
}

func main() {
	window := flag.Duration("window", 100*time.Millisecond, "length of one measured window")
	total := flag.Duration("for", 10*time.Second, "how long to run")
	kernel := flag.String("kernel", "sha", "work timed: sha (SHA-256 of 4 KiB) or fp (100 rounds of a 16x16 dense net)")
	flag.Parse()
	if *kernel != "sha" && *kernel != "fp" {
		fmt.Fprintf(os.Stderr, "noiseloop: -kernel %q: unknown; use sha or fp\n", *kernel)
		os.Exit(2)
	}
	var x [16]float64
	x[0] = 1
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i)
	}
	start := time.Now()
	var sink byte
	for time.Since(start) < *total {
		w0 := time.Now()
		n := 0
		for time.Since(w0) < *window {
			for k := 0; k < 16; k++ {
				if *kernel == "fp" {
					for r := 0; r < 100; r++ {
						fpStep(&x)
					}
					sink ^= byte(x[0] * 1e6)
				} else {
					s := sha256.Sum256(buf)
					sink ^= s[0]
				}
			}
			n += 16
		}
		el := time.Since(w0)
		fmt.Printf("%.3f %.1f\n", w0.Sub(start).Seconds(), float64(el.Nanoseconds())/float64(n))
	}
	fmt.Fprintln(os.Stderr, sink)
}
