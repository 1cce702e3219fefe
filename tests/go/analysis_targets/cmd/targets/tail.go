// The Go function the asm tailJump jumps to: tailJump itself then has no RET of its own.
// Kept apart from main.go so that the asm file names its only external target here.
package main

// tailTarget is where tailJump jumps to.
//
//go:noinline
func tailTarget() int { return 42 }
