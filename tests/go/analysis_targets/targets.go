// Package targets holds functions whose symbol names exercise the Go naming rules gate must
// match: a package path with dots, slashes and a version suffix, methods, closures, generics.
package targets

// Cart has a pointer method and a value method.
type Cart struct{ items []int }

//go:noinline
func (c *Cart) Checkout() int {
	total := 0
	for _, it := range c.items {
		total += it
	}
	return total
}

//go:noinline
func (c Cart) Total() int { return len(c.items) }

// Adder returns a closure: the closure is named Adder.func1.
//
//go:noinline
func Adder(n int) func(int) int {
	return func(x int) int { return x + n }
}

// Map is generic: the compiler emits one body per GC shape (Map[go.shape.int], ...).
//
//go:noinline
func Map[T any](xs []T, f func(T) T) []T {
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// Stack is a generic type with a method.
type Stack[T any] struct{ items []T }

//go:noinline
func (s *Stack[T]) Push(x T) { s.items = append(s.items, x) }

// F is the plain function the pattern example.com/analysis/v2.F names.
//
//go:noinline
func F(x int) int { return x*3 + 1 }
