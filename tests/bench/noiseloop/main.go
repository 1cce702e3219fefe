// Command noiseloop measures how fast this machine is, moment to moment: it hashes 4 KiB with
// SHA-256 in a loop and prints, for every window of -window, the mean time per hash in ns.
// The noise lab (tests/bench/noise_lab.py) runs it to find the size and timescale of the swings.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	window := flag.Duration("window", 100*time.Millisecond, "length of one measured window")
	total := flag.Duration("for", 10*time.Second, "how long to run")
	flag.Parse()
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
				s := sha256.Sum256(buf)
				sink ^= s[0]
			}
			n += 16
		}
		el := time.Since(w0)
		fmt.Printf("%.3f %.1f\n", w0.Sub(start).Seconds(), float64(el.Nanoseconds())/float64(n))
	}
	fmt.Fprintln(os.Stderr, sink)
}
