package shop

import (
	"example.com/shop/internal/instr"
	"example.com/shop/pricing"
)

// Number is what SumBy can add up.
type Number interface {
	~int64 | ~float64
}

// SumBy adds up key(l) over the lines. It is generic: used with pricing.Cents and int64 (both of
// GC shape int64, so one instantiation: SumBy[go.shape.int64]) and with float64
// (SumBy[go.shape.float64]). On Go 1.19 the symbols carry a "_0" suffix: SumBy[go.shape.int64_0].
//
//go:noinline
func SumBy[N Number](lines []LineItem, key func(LineItem) N) N {
	f := instr.SumByInt64
	var zero N
	switch any(zero).(type) {
	case float64:
		f = instr.SumByFloat64
	case pricing.Cents, int64:
	default:
		panic("SumBy: uncounted type argument") // add its shape to internal/instr
	}
	t := f.Enter()
	var s N
	for _, l := range lines {
		s += key(l)
	}
	f.Exit(t)
	return s
}
