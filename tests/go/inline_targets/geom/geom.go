// Package geom holds a small function that the compiler inlines into another package: its
// DWARF abstract origin is named with the full import path (gate.test/inlinetargets/geom.Area).
package geom

// Area is small enough to be inlined everywhere it is called; the call of Keep leaves code of
// every inlined copy (see main.keep).
func Area(w, h int) int { return Keep(w * h) }

// Keep is never inlined.
//
//go:noinline
func Keep(v int) int { return v }
