//go:build !gateslowcode

package main

// slowDispatchCode: see slowcode_on.go. False here, so the compiler drops the branch in dispatch
// and the code is the same as without the knob.
const slowDispatchCode = false
