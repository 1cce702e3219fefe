package main

import "testing"

// BenchmarkHot: hot alone, its ns/op is hot's time per call (run with a count: -test.benchtime 100000x).
func BenchmarkHot(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += hot(uint64(i))
	}
}

// BenchmarkRound: one call of each other function, so that a probed run of the test binary calls
// them too (gate's speed normalization needs functions with calls in every run).
func BenchmarkRound(b *testing.B) {
	for i := 0; i < b.N; i++ {
		round(i)
	}
}
