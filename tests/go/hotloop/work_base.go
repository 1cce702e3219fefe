//go:build !gateslow8

package main

// hotRounds: the hot function's own work, mixing rounds over the buffer (work_slow8.go: the head).
const hotRounds = 1000
