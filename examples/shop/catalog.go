package shop

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/bits"

	"example.com/shop/internal/instr"
	"example.com/shop/pricing"
)

// Category is a node of the category tree; products hang off the nodes.
type Category struct {
	Name     string
	Path     string // "electronics/audio/headphones"
	Parent   *Category
	Children []*Category
	SKUs     []string
}

// NewCategory returns a child of parent (nil for the root).
func NewCategory(parent *Category, name string) *Category {
	c := &Category{Name: name, Path: name, Parent: parent}
	if parent != nil {
		if parent.Parent != nil {
			c.Path = parent.Path + "/" + name
		}
		parent.Children = append(parent.Children, c)
	}
	return c
}

// Sales is what was sold of one product.
type Sales struct {
	Units   int64
	Revenue pricing.Cents
}

// CatStats aggregates the sales of a category subtree.
type CatStats struct {
	Categories int
	Products   int
	Sold       int // products with at least one unit sold
	Units      int64
	Revenue    pricing.Cents
	MaxDepth   int
	Buckets    [24]int64 // products by log2 of their revenue in cents
	Digest     uint64    // XOR of the FNV-1a hashes of the summary lines of the categories

	spent int64 // bookkeeping of SHOP_SLOW: the time this Walk took, when it is slowed
}

func (s *CatStats) merge(o *CatStats) {
	s.Categories += o.Categories
	s.Products += o.Products
	s.Sold += o.Sold
	s.Units += o.Units
	s.Revenue += o.Revenue
	if o.MaxDepth > s.MaxDepth {
		s.MaxDepth = o.MaxDepth
	}
	for i := range s.Buckets {
		s.Buckets[i] += o.Buckets[i]
	}
	s.Digest ^= o.Digest
}

// Walk aggregates the sales of the subtree of c (at depth `depth`) recursively and renders the
// summary of every category as a text line and as JSON (hashed into Digest, the report's cache
// key): ~2-3 us per category. The tree has deep branches and each frame holds two CatStats (~0.5 KiB), so walking
// on a fresh goroutine grows (copies) its stack several times.
//
//go:noinline
func (c *Category) Walk(depth int, sales map[string]Sales) CatStats {
	t := instr.CategoryWalk.Enter()
	var st CatStats
	st.Categories, st.MaxDepth = 1, depth
	for _, sku := range c.SKUs {
		s := sales[sku]
		st.Products++
		if s.Units > 0 {
			st.Sold++
		}
		st.Units += s.Units
		st.Revenue += s.Revenue
		b := bits.Len64(uint64(s.Revenue))
		if b >= len(st.Buckets) {
			b = len(st.Buckets) - 1
		}
		st.Buckets[b]++
	}
	var inChildren int64 // time in the (self-slowing) recursive calls; only when slowed
	for _, ch := range c.Children {
		cs := ch.Walk(depth+1, sales)
		inChildren += cs.spent
		st.merge(&cs)
	}
	line := fmt.Sprintf("%-48s %2d categories %4d products %4d sold %6d units %12s revenue",
		c.Path, st.Categories, st.Products, st.Sold, st.Units, money(st.Revenue))
	doc, err := json.Marshal(struct {
		Path  string
		Depth int
		Stats *CatStats
	}{c.Path, depth, &st})
	if err != nil {
		panic(err)
	}
	h := fnv.New64a()
	h.Write([]byte(line))
	h.Write(doc)
	st.Digest ^= h.Sum64()
	st.spent = instr.CategoryWalk.ExitSelf(t, inChildren)
	return st
}
