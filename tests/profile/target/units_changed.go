//go:build gatechanged

package main

// The code-diff test's changed head: burn30 does 31 units (one immediate differs).
const burn30Units = 31
