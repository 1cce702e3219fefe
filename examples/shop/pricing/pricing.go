// Package pricing turns a cart into a priced quote: a configurable list of discount rules (built
// once as closures by NewRules) applied by Apply, plus tax.
//
// Every function of this package is instrumented, so the glob example.com/shop/pricing.* in
// gate.yaml names exactly the counted functions: keep it that way (no package-level variables
// with initialisers, no other functions or methods; helpers go into package shop).
package pricing

import (
	"strings"

	"example.com/shop/internal/instr"
)

// Cents is an amount of money in cents.
type Cents int64

// Line is one priced line of a quote.
type Line struct {
	SKU      string
	Category string // category path, e.g. "electronics/audio/headphones"
	Qty      int
	Unit     Cents
}

// Quote is what the rules work on.
type Quote struct {
	Lines    []Line
	Region   string // tax region, e.g. "DE"
	Coupon   string
	Subtotal Cents
	Discount Cents
	Tax      Cents
	Total    Cents
	Applied  []string // names of the rules that gave a discount
}

// Config is the discount configuration.
type Config struct {
	CategoryOff map[string]int   // category path prefix -> percent off
	BulkQty     int              // from this many items in total ...
	BulkPercent int              // ... this percent off the rest
	Coupons     map[string]Cents // coupon code -> amount off
}

// Rule adds its discount to a quote.
type Rule func(q *Quote)

// NewRules builds the rules of a configuration as closures over copies of its settings:
// NewRules.func1 (category discounts), NewRules.func2 (bulk discount), NewRules.func3 (coupons).
//
//go:noinline
func NewRules(cfg Config) []Rule {
	t := instr.PricingNewRules.Enter()
	type prefixOff struct {
		prefix  string
		percent int
	}
	offs := make([]prefixOff, 0, len(cfg.CategoryOff))
	for p, pct := range cfg.CategoryOff {
		offs = append(offs, prefixOff{p, pct})
	}
	// Longest prefix first, so the most specific category wins (insertion sort: no sort.Slice
	// closure in this package).
	for i := 1; i < len(offs); i++ {
		for j := i; j > 0 && (len(offs[j].prefix) > len(offs[j-1].prefix) ||
			len(offs[j].prefix) == len(offs[j-1].prefix) && offs[j].prefix < offs[j-1].prefix); j-- {
			offs[j], offs[j-1] = offs[j-1], offs[j]
		}
	}
	coupons := make(map[string]Cents, len(cfg.Coupons))
	for code, off := range cfg.Coupons {
		coupons[strings.ToUpper(code)] = off
	}
	bulkQty, bulkPct := cfg.BulkQty, cfg.BulkPercent

	rules := []Rule{
		func(q *Quote) { // NewRules.func1: category discounts
			t := instr.PricingCategoryRule.Enter()
			var off Cents
			for _, l := range q.Lines {
				for _, o := range offs {
					if strings.HasPrefix(l.Category, o.prefix) {
						off += l.Unit * Cents(l.Qty) * Cents(o.percent) / 100
						break
					}
				}
			}
			if off > 0 {
				q.Discount += off
				q.Applied = append(q.Applied, "category")
			}
			instr.PricingCategoryRule.Exit(t)
		},
		func(q *Quote) { // NewRules.func2: bulk discount
			t := instr.PricingBulkRule.Enter()
			n := 0
			for _, l := range q.Lines {
				n += l.Qty
			}
			if bulkQty > 0 && n >= bulkQty {
				q.Discount += (q.Subtotal - q.Discount) * Cents(bulkPct) / 100
				q.Applied = append(q.Applied, "bulk")
			}
			instr.PricingBulkRule.Exit(t)
		},
		func(q *Quote) { // NewRules.func3: coupons
			t := instr.PricingCouponRule.Enter()
			if q.Coupon != "" {
				if off, ok := coupons[strings.ToUpper(strings.TrimSpace(q.Coupon))]; ok {
					if left := q.Subtotal - q.Discount; off > left {
						off = left
					}
					q.Discount += off
					q.Applied = append(q.Applied, "coupon")
				}
			}
			instr.PricingCouponRule.Exit(t)
		},
	}
	instr.PricingNewRules.Exit(t)
	return rules
}

// Apply prices q: subtotal, every rule in order, tax of the region, total. It returns q.Total.
//
//go:noinline
func Apply(rules []Rule, q *Quote) Cents {
	t := instr.PricingApply.Enter()
	q.Subtotal, q.Discount, q.Applied = 0, 0, q.Applied[:0]
	for _, l := range q.Lines {
		q.Subtotal += l.Unit * Cents(l.Qty)
	}
	for _, r := range rules {
		r(q)
	}
	if q.Discount > q.Subtotal {
		q.Discount = q.Subtotal
	}
	var permille Cents
	switch q.Region {
	case "DE":
		permille = 190
	case "FR":
		permille = 200
	case "NL":
		permille = 210
	case "US":
		permille = 0
	default:
		permille = 170
	}
	net := q.Subtotal - q.Discount
	q.Tax = (net*permille + 500) / 1000
	q.Total = net + q.Tax
	instr.PricingApply.Exit(t)
	return q.Total
}
