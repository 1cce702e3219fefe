//go:build go1.20

package instr

// ShapeSuffix is what the compiler appends to a GC-shape type name in the symbol of a generic
// instantiation. From Go 1.20 on (unified IR) there is none: example.com/shop.SumBy[go.shape.int64].
const ShapeSuffix = ""
