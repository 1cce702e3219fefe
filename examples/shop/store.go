// Package shop is a small order service used as the gate's example workload: a product store
// behind a lock, carts, checkout with pricing rules and validation, a category tree and reports.
//
// The instrumented functions (call counters and the SHOP_SLOW knob, see internal/instr) are:
// (*Store).Get, (*Store).Put, (*Store).CheckoutBatch and its worker closure
// (*Store).CheckoutBatch.func1, (*Cart).Add, (*Cart).Checkout, Order.Invoice, ValidateOrder,
// (*Category).Walk, GenerateReport and the instantiations of SumBy. Every method of *Store is
// instrumented (gate.yaml globs example.com/shop.(*Store).*): do not add uncounted ones.
package shop

import (
	"hash/fnv"
	"sort"
	"strconv"
	"sync"

	"example.com/shop/internal/instr"
	"example.com/shop/pricing"
)

// Product is an item of the catalog.
type Product struct {
	SKU      string
	Name     string
	Category string // category path, e.g. "home/kitchen/knives"
	Price    pricing.Cents
	WeightKg float64
	Tags     []string
	Version  uint64
	ETag     string
}

// Store holds the products, guarded by a lock.
type Store struct {
	mu       sync.RWMutex
	products map[string]*Product
	version  uint64
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{products: make(map[string]*Product)}
}

// Get returns a copy of the product (its tags included) and whether it exists; it re-derives the
// ETag of the copy to hand out a consistent version. ~1 us.
//
//go:noinline
func (s *Store) Get(sku string) (Product, bool) {
	t := instr.StoreGet.Enter()
	s.mu.RLock()
	p, ok := s.products[sku]
	var out Product
	if ok {
		out = *p
		out.Tags = append([]string(nil), p.Tags...)
	}
	s.mu.RUnlock()
	if ok {
		out.ETag = etag(&out)
	}
	instr.StoreGet.Exit(t)
	return out, ok
}

// Put inserts or replaces a product, bumping the store version, and keeps its tags sorted.
//
//go:noinline
func (s *Store) Put(p Product) {
	t := instr.StorePut.Enter()
	np := p
	np.Tags = append([]string(nil), p.Tags...)
	sort.Strings(np.Tags)
	s.mu.Lock()
	s.version++
	np.Version = s.version
	np.ETag = etag(&np)
	s.products[np.SKU] = &np
	s.mu.Unlock()
	instr.StorePut.Exit(t)
}

// Len returns the number of products (not instrumented: a plain function, not a method, so the
// (*Store).* glob stays exact).
func Len(s *Store) int {
	s.mu.RLock()
	n := len(s.products)
	s.mu.RUnlock()
	return n
}

// Result is the outcome of one checkout of a batch.
type Result struct {
	Order Order
	Err   error
}

// CheckoutBatch checks out carts on `workers` goroutines (fan-out, WaitGroup) and returns the
// results in cart order. Each worker goroutine runs the closure (*Store).CheckoutBatch.func1.
//
//go:noinline
func (s *Store) CheckoutBatch(carts []*Cart, rules []pricing.Rule, workers int) []Result {
	t := instr.StoreCheckoutBatch.Enter()
	if workers < 1 {
		workers = 1
	}
	results := make([]Result, len(carts))
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		w := w
		go func() { // (*Store).CheckoutBatch.func1: no arguments, so no go-wrapper on Go >= 1.22
			t := instr.StoreCheckoutBatchWorker.Enter()
			for i := w; i < len(carts); i += workers {
				o, err := carts[i].Checkout(rules)
				results[i] = Result{o, err}
			}
			instr.StoreCheckoutBatchWorker.Exit(t)
			wg.Done()
		}()
	}
	wg.Wait()
	instr.StoreCheckoutBatch.Exit(t)
	return results
}

func etag(p *Product) string {
	h := fnv.New64a()
	var buf [64]byte
	h.Write([]byte(p.SKU))
	h.Write([]byte(p.Name))
	h.Write([]byte(p.Category))
	h.Write(strconv.AppendInt(buf[:0], int64(p.Price), 10))
	h.Write(strconv.AppendFloat(buf[:0], p.WeightKg, 'g', -1, 64))
	for _, tag := range p.Tags {
		h.Write([]byte(tag))
	}
	h.Write(strconv.AppendUint(buf[:0], p.Version, 10))
	return strconv.FormatUint(h.Sum64(), 16)
}
