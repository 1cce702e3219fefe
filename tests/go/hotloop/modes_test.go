package main

import (
	"os"
	"testing"
	"time"
)

// BenchmarkModes: a benchmark whose processes each run at one of two speeds, as issue 54's library
// benchmark did (320-350 or 550-650 MB/s, process by process): each process draws its mode once,
// from its start time (about half and half), and an op is modesFast or modesSlow calls of hot
// (modes_base.go; the head whose modes move apart: modes_apart.go). Run with a count:
// -test.benchtime 1000x. GATE_MODES=fast or slow pins the mode.
func BenchmarkModes(b *testing.B) {
	calls := modesFast
	switch os.Getenv("GATE_MODES") {
	case "slow":
		calls = modesSlow
	case "fast":
	default:
		if time.Now().UnixNano()/1000%2 == 1 {
			calls = modesSlow
		}
	}
	for i := 0; i < b.N; i++ {
		for k := 0; k < calls; k++ {
			sink += hot(uint64(i + k))
		}
	}
}
