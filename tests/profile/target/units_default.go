//go:build !gatechanged

package main

// burn30Units is burn30's work per round; the code-diff test builds a head where it changes
// (units_changed.go), which changes burn30's machine code and nothing else's.
const burn30Units = 30
