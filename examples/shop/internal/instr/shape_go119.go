//go:build !go1.20

package instr

// ShapeSuffix is what the compiler appends to a GC-shape type name in the symbol of a generic
// instantiation. Go 1.18 and 1.19 (the old, non-unified frontend) number the shape by type
// parameter position: example.com/shop.SumBy[go.shape.int64_0].
const ShapeSuffix = "_0"
