// The functions gate's analysis tests disassemble: one per stack-check prologue form (small,
// big and huge frames), a nosplit leaf, a 0xC3 constant, and bodies that never return.
package main

import (
	"fmt"
	"os"

	targets "example.com/analysis/v2"
)

var sink int

// spinFor has a small frame: `cmp 0x10(%r14),%rsp; jbe`.
//
//go:noinline
func spinFor(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	fmt.Fprint(os.Stderr, "")
	return s
}

// bigFrame has ~2 KiB of locals: `lea -N(%rsp),%r12; cmp 0x10(%r14),%r12; jbe`.
//
//go:noinline
func bigFrame(n int) int {
	var buf [2048]byte
	for i := range buf {
		buf[i] = byte(i + n)
	}
	fmt.Fprint(os.Stderr, "")
	return int(buf[n%len(buf)])
}

// hugeFrame has 64 KiB of locals: an extra underflow check (`jb`) before the `jbe`.
//
//go:noinline
func hugeFrame(n int) int {
	var buf [64 << 10]byte
	for i := range buf {
		buf[i] = byte(i ^ n)
	}
	fmt.Fprint(os.Stderr, "")
	return int(buf[n%len(buf)])
}

// leafAdd has no frame and no stack check.
//
//go:nosplit
//go:noinline
func leafAdd(a, b int) int { return a + b }

// magicC3 carries 0xC3 bytes in an immediate: a byte scan would take them for RETs.
//
//go:noinline
func magicC3(x int) int { return x ^ 0xc3c3c3c3c3c3 }

// alwaysPanics ends in a call to runtime.gopanic: it has no RET.
//
//go:noinline
func alwaysPanics(n int) int {
	panic(fmt.Sprintf("always %d", n))
}

// multiReturn has several exits.
//
//go:noinline
func multiReturn(n int) int {
	if n < 0 {
		return -1
	}
	if n == 0 {
		return 0
	}
	fmt.Fprint(os.Stderr, "")
	return n * 2
}

// Implemented in asm_amd64.s / asm_arm64.s.
func tailJump() int
func undecodable()

func main() {
	sink += spinFor(10) + bigFrame(3) + hugeFrame(5) + leafAdd(1, 2) + magicC3(7) + multiReturn(4)
	sink += tailJump() + len(costSamples)
	c := &targets.Cart{}
	sink += c.Checkout() + c.Total() + targets.Adder(2)(3) + targets.F(1)
	sink += len(targets.Map([]int{1, 2}, func(x int) int { return x + 1 }))
	sink += len(targets.Map([]string{"a"}, func(x string) string { return x + "!" }))
	var s targets.Stack[int]
	s.Push(1)
	if len(os.Args) > 5 {
		undecodable()
		sink += alwaysPanics(1)
	}
	fmt.Println(sink)
}
