//go:build gateslowcode

// The units lab's slowdown as a code change (tests/bench/units_lab.py --slow-tag gateslowcode):
// dispatch runs 5/4 of its rounds, computed in its own body, so its code (and size) differs from
// the base's while the list of functions stays the same.
package main

const slowDispatchCode = true
