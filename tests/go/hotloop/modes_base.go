//go:build !gatemodesapart

package main

// BenchmarkModes' two speeds (modes_test.go): an op of a slow process calls hot 1.8x as often as
// one of a fast process.
const (
	modesFast = 25
	modesSlow = 45
)
