package shop_test

// Per-call cost of the instrumented functions, each called on its own:
//
//	cd examples/shop && GOMAXPROCS=2 go test -run '^$' -bench . -count 3
//
// (The latency inside the real workload is printed by SHOP_TIMING=1 bin/shop; see README.md.)

import (
	"math/rand"
	"sync"
	"testing"

	"example.com/shop"
	"example.com/shop/internal/demo"
	"example.com/shop/pricing"
)

type fixture struct {
	w      *demo.World
	rules  []pricing.Rule
	cart   *shop.Cart // a valid cart of 4 lines
	order  shop.Order
	carts  []*shop.Cart
	orders []shop.Order
	sales  map[string]shop.Sales
}

var (
	fixtureOnce sync.Once
	theFixture  *fixture
)

// newFixture returns the shared fixture (built once: 500 checkouts) and resets the timer.
func newFixture(b *testing.B) *fixture {
	fixtureOnce.Do(func() { theFixture = buildFixture(b) })
	b.ResetTimer()
	return theFixture
}

func buildFixture(b *testing.B) *fixture {
	f := &fixture{w: demo.NewWorld(1)}
	f.rules = pricing.NewRules(f.w.Config)
	rng := rand.New(rand.NewSource(1))
	for len(f.orders) < 500 {
		c := demo.Cart(f.w.Store, demo.RandomCart(rng, len(f.carts)))
		o, err := c.Checkout(f.rules)
		if err != nil {
			continue
		}
		f.orders = append(f.orders, o)
		if len(f.carts) < 25 {
			f.carts = append(f.carts, c)
		}
		if f.cart == nil && len(c.Lines) == 4 {
			f.cart, f.order = c, o
		}
	}
	if f.cart == nil {
		b.Fatal("no valid 4-line cart in the first 500 orders")
	}
	f.sales = map[string]shop.Sales{}
	for _, o := range f.orders {
		for _, l := range o.Lines {
			s := f.sales[l.SKU]
			s.Units += int64(l.Qty)
			s.Revenue += l.Unit * pricing.Cents(l.Qty)
			f.sales[l.SKU] = s
		}
	}
	return f
}

func BenchmarkStoreGet(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		f.w.Store.Get(demo.SKU(i % demo.NumProducts))
	}
}

func BenchmarkStorePut(b *testing.B) {
	f := newFixture(b)
	p, _ := f.w.Store.Get(demo.SKU(7))
	for i := 0; i < b.N; i++ {
		f.w.Store.Put(p)
	}
}

func BenchmarkCartAdd(b *testing.B) {
	f := newFixture(b)
	c := shop.NewCart(1, "c", f.w.Store)
	for i := 0; i < b.N; i++ {
		if i%8 == 0 {
			c.Lines = c.Lines[:0]
		}
		c.Add(demo.SKU(i%demo.NumProducts), 1)
	}
}

func BenchmarkCartCheckout(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		f.cart.Checkout(f.rules)
	}
}

func BenchmarkCheckoutBatch25(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		f.w.Store.CheckoutBatch(f.carts, f.rules, 2)
	}
}

func BenchmarkOrderInvoice(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		_ = f.order.Invoice()
	}
}

func BenchmarkValidateOrder(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		shop.ValidateOrder(&f.order)
	}
}

func BenchmarkValidateOrderPanic(b *testing.B) {
	f := newFixture(b)
	bad := f.order
	bad.Address = ""
	for i := 0; i < b.N; i++ {
		func() {
			defer func() { recover() }()
			shop.ValidateOrder(&bad)
		}()
	}
}

func BenchmarkWalkDepartment(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		f.w.Catalog.Children[i%len(f.w.Catalog.Children)].Walk(1, f.sales)
	}
}

func BenchmarkGenerateReport500(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		shop.GenerateReport(f.orders, f.w.Catalog)
	}
}

func BenchmarkSumByCents(b *testing.B) {
	f := newFixture(b)
	total := func(l shop.LineItem) pricing.Cents { return l.Unit * pricing.Cents(l.Qty) }
	for i := 0; i < b.N; i++ {
		shop.SumBy(f.order.Lines, total)
	}
}

func BenchmarkSumByFloat64(b *testing.B) {
	f := newFixture(b)
	weight := func(l shop.LineItem) float64 { return l.WeightKg * float64(l.Qty) }
	for i := 0; i < b.N; i++ {
		shop.SumBy(f.order.Lines, weight)
	}
}

func quote(o shop.Order) pricing.Quote {
	q := pricing.Quote{Region: o.Region, Coupon: "WELCOME5"}
	for _, l := range o.Lines {
		q.Lines = append(q.Lines, pricing.Line{SKU: l.SKU, Category: l.Category, Qty: l.Qty, Unit: l.Unit})
	}
	return q
}

func BenchmarkPricingApply(b *testing.B) {
	f := newFixture(b)
	q := quote(f.order)
	for i := 0; i < b.N; i++ {
		pricing.Apply(f.rules, &q)
	}
}

func BenchmarkPricingRules(b *testing.B) {
	f := newFixture(b)
	q := quote(f.order)
	pricing.Apply(f.rules, &q)
	for _, r := range []struct {
		name string
		rule pricing.Rule
	}{{"func1-category", f.rules[0]}, {"func2-bulk", f.rules[1]}, {"func3-coupon", f.rules[2]}} {
		b.Run(r.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				q.Applied = q.Applied[:0]
				r.rule(&q)
			}
		})
	}
}

func BenchmarkPricingNewRules(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		pricing.NewRules(f.w.Config)
	}
}
