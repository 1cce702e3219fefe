package main

import "flag"

// -mode children: parent calls childA, childB and childC, each 10 units of its own loop (no shared
// inlined helper, so that each child is its own leaf frame). -double N makes childB do N times its
// work: the profile-diff accuracy test's head (tests/profile/accuracy_test.cpp).
var childBFactor = flag.Int("double", 1, "children mode: childB does this many times its work")

//go:noinline
func parent(x uint64) uint64 { return childC(childB(childA(x))) }

//go:noinline
func childA(x uint64) uint64 {
	for i := 0; i < 10*unit; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func childB(x uint64) uint64 {
	n := 10 * unit * *childBFactor
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func childC(x uint64) uint64 {
	for i := 0; i < 10*unit; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func childrenRound(x uint64) uint64 { return parent(x) }
