// The waits workload (issue 54): three functions whose calls mostly wait, each its own way, and
// whose own CPU time is a few microseconds: a sleep, a mutex another goroutine holds, a channel
// another goroutine feeds. Built with -ldflags "-X main.scale=2" every wait doubles (the head): the
// functions' latency doubles and their CPU time does not, so only a gate that judges latency as
// latency catches it. Two CPU functions beside them give the run a main path on CPU.
//
// Usage: waits [-calls 100] [-wait 1ms]
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// scale multiplies every wait: -ldflags "-X main.scale=2".
var scale = "1"

//go:noinline
func Sleep(d time.Duration) { time.Sleep(d) }

// LockWait takes a mutex that another goroutine holds for a while, and gives it back.
//
//go:noinline
func LockWait(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock()
}

// ChanWait receives what another goroutine sends after a while.
//
//go:noinline
func ChanWait(c chan int) int { return <-c }

// Spin burns CPU for a fixed amount of work (the run's main path on CPU).
//
//go:noinline
func Spin(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func main() {
	calls := flag.Int("calls", 100, "calls of each waiting function")
	wait := flag.Duration("wait", time.Millisecond, "each wait, before -X main.scale")
	flag.Parse()
	f, err := strconv.ParseFloat(scale, 64)
	if err != nil || f <= 0 {
		fmt.Fprintf(os.Stderr, "waits: main.scale %q is not a positive number\n", scale)
		os.Exit(2)
	}
	w := time.Duration(float64(*wait) * f)
	var mu sync.Mutex
	c := make(chan int)
	held := make(chan struct{})
	var sink uint64
	for i := 0; i < *calls; i++ {
		Sleep(w)
		go func() {
			mu.Lock()
			held <- struct{}{}
			time.Sleep(w)
			mu.Unlock()
		}()
		<-held
		LockWait(&mu)
		go func() {
			time.Sleep(w)
			c <- i
		}()
		sink += uint64(ChanWait(c))
		sink += Spin(20000)
	}
	if sink == 42 {
		fmt.Println(sink)
	}
}
