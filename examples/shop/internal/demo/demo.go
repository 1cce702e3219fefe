// Package demo builds the deterministic data the shop programs run on: a catalog tree with deep
// branches, products, a pricing configuration and random (seeded) carts.
package demo

import (
	"fmt"
	"math/rand"
	"strings"

	"example.com/shop"
	"example.com/shop/pricing"
)

// NumProducts is the number of products; their SKUs are SKU(0) ... SKU(NumProducts-1).
const NumProducts = 600

// SKU returns the SKU of product i.
func SKU(i int) string { return fmt.Sprintf("SKU-%05d", i) }

// Departments are the top-level categories.
var Departments = []string{"electronics", "home", "garden", "toys", "books", "sports"}

// Coupons are the codes the pricing configuration knows; carts also use unknown and malformed ones.
var Coupons = map[string]pricing.Cents{"WELCOME5": 500, "SPRING10": 1000, "VIP-25": 2500}

// World is a populated store.
type World struct {
	Store   *shop.Store
	Catalog *shop.Category
	Leaves  []*shop.Category // categories that hold products
	Config  pricing.Config
}

// chainDepth is the depth of the "long tail" branch of every department: deep enough that
// (*Category).Walk grows the stack of the goroutine walking it.
const chainDepth = 48

// NewWorld builds the catalog and puts NumProducts products into a new store (NumProducts
// (*Store).Put calls).
func NewWorld(seed int64) *World {
	rng := rand.New(rand.NewSource(seed))
	w := &World{Store: shop.NewStore(), Catalog: shop.NewCategory(nil, "all")}
	for _, d := range Departments {
		dept := shop.NewCategory(w.Catalog, d)
		// a balanced part: 3 levels of 3 ...
		var grow func(c *shop.Category, level int)
		grow = func(c *shop.Category, level int) {
			if level == 3 {
				w.Leaves = append(w.Leaves, c)
				return
			}
			for i := 0; i < 3; i++ {
				grow(shop.NewCategory(c, fmt.Sprintf("%c%d", 'a'+level, i)), level+1)
			}
		}
		grow(dept, 0)
		// ... and a long tail: a chain of chainDepth sub-categories, products on every 8th.
		c := dept
		for i := 1; i <= chainDepth; i++ {
			c = shop.NewCategory(c, fmt.Sprintf("t%02d", i))
			if i%8 == 0 {
				w.Leaves = append(w.Leaves, c)
			}
		}
	}
	for i := 0; i < NumProducts; i++ {
		leaf := w.Leaves[i%len(w.Leaves)]
		p := shop.Product{
			SKU:      SKU(i),
			Name:     fmt.Sprintf("%s item %d", strings.ReplaceAll(leaf.Path, "/", " "), i),
			Category: leaf.Path,
			Price:    pricing.Cents(199 + rng.Intn(50000)),
			WeightKg: 0.05 + rng.Float64()*8,
			Tags:     []string{leaf.Name, Departments[i%len(Departments)], fmt.Sprintf("batch%d", i%7)},
		}
		leaf.SKUs = append(leaf.SKUs, p.SKU)
		w.Store.Put(p)
	}
	w.Config = pricing.Config{
		CategoryOff: map[string]int{"electronics": 5, "electronics/a0": 10, "home/a1/b2": 15, "toys": 8, "books/t01/t02": 20},
		BulkQty:     12,
		BulkPercent: 7,
		Coupons:     Coupons,
	}
	return w
}

// Regions are the shipping regions of carts.
var Regions = []string{"DE", "FR", "NL", "US", "AT"}

// CartSpec describes a cart independently of a store (shopload sends these to shopd).
type CartSpec struct {
	ID       int        `json:"id"`
	Customer string     `json:"customer"`
	Address  string     `json:"address"`
	Region   string     `json:"region"`
	Coupon   string     `json:"coupon,omitempty"`
	Items    []ItemSpec `json:"items"`
}

// ItemSpec is one item of a CartSpec.
type ItemSpec struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

// RandomCart draws a cart. About one cart in eight is invalid in a way only ValidateOrder
// notices (no address, a quantity over shop.MaxQty, a malformed coupon), and about one item in
// 60 names an unknown SKU ((*Cart).Add rejects it).
func RandomCart(rng *rand.Rand, id int) CartSpec {
	c := CartSpec{
		ID:       id,
		Customer: fmt.Sprintf("cust%05d", rng.Intn(5000)),
		Address:  fmt.Sprintf("%d Example Street, %05d Town", 1+rng.Intn(200), rng.Intn(100000)),
		Region:   Regions[rng.Intn(len(Regions))],
	}
	switch rng.Intn(10) {
	case 0:
		c.Coupon = "WELCOME5"
	case 1:
		c.Coupon = "SPRING10"
	case 2:
		c.Coupon = "NOPE-99" // well-formed but unknown
	}
	n := 1 + rng.Intn(8)
	for i := 0; i < n; i++ {
		sku := SKU(rng.Intn(NumProducts))
		if rng.Intn(60) == 0 {
			sku = fmt.Sprintf("SKU-X%04d", rng.Intn(10000))
		}
		c.Items = append(c.Items, ItemSpec{SKU: sku, Qty: 1 + rng.Intn(5)})
	}
	switch rng.Intn(24) {
	case 0:
		c.Address = "  "
	case 1:
		c.Items[0].Qty = shop.MaxQty + 1 + rng.Intn(50)
	case 2:
		c.Coupon = "welcome5!"
	}
	return c
}

// Cart fills a shop cart from a spec ((*Cart).Add per item; unknown SKUs are skipped).
func Cart(s *shop.Store, spec CartSpec) *shop.Cart {
	c := shop.NewCart(spec.ID, spec.Customer, s)
	c.Address, c.Region, c.Coupon = spec.Address, spec.Region, spec.Coupon
	for _, it := range spec.Items {
		_ = c.Add(it.SKU, it.Qty) // an unknown SKU is dropped, as a web shop would
	}
	return c
}

// Restock changes the price of a few products (one (*Store).Put each).
func Restock(rng *rand.Rand, s *shop.Store, n int) {
	for i := 0; i < n; i++ {
		p, ok := s.Get(SKU(rng.Intn(NumProducts)))
		if !ok {
			continue
		}
		p.Price = p.Price * pricing.Cents(95+rng.Intn(11)) / 100
		s.Put(p)
	}
}

// HistoricalOrders returns n already-placed orders ("loaded from the database"), built directly:
// no instrumented function runs.
func HistoricalOrders(seed int64, n int) []shop.Order {
	rng := rand.New(rand.NewSource(seed + 7919))
	orders := make([]shop.Order, n)
	for i := range orders {
		o := shop.Order{ID: -1 - i, Customer: fmt.Sprintf("cust%05d", rng.Intn(5000)), Region: Regions[rng.Intn(len(Regions))]}
		for j, k := 0, 1+rng.Intn(6); j < k; j++ {
			l := shop.LineItem{SKU: SKU(rng.Intn(NumProducts)), Qty: 1 + rng.Intn(4), Unit: pricing.Cents(199 + rng.Intn(50000))}
			o.Lines = append(o.Lines, l)
			o.Subtotal += l.Unit * pricing.Cents(l.Qty)
		}
		o.Tax = o.Subtotal * 19 / 100
		o.Total = o.Subtotal + o.Tax
		orders[i] = o
	}
	return orders
}
