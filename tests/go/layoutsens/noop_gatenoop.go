//go:build gatenoop

// A no-op code change for the units lab (tests/bench/units_lab.py --code-change): built with
// -tags gatenoop, the binary holds two more functions. Nothing the workload times calls them, but
// -randlayout shuffles a different list of functions, so the head's layout differs from the base's
// even when both are linked with the same seed, as it does after a real change that adds or
// removes a function (or changes what is inlined).
package main

var noopSink uint64

func init() { noopSink = noopWork(7) }

//go:noinline
func noopWork(x uint64) uint64 {
	for i := 0; i < 3; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
