package shop

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"

	"example.com/shop/internal/instr"
	"example.com/shop/pricing"
)

// LineItem is one product line of a cart or order.
type LineItem struct {
	SKU      string
	Name     string
	Category string
	Qty      int
	Unit     pricing.Cents
	WeightKg float64 // per unit
}

// Cart collects line items of one customer.
type Cart struct {
	ID       int
	Customer string
	Address  string
	Region   string
	Coupon   string
	Lines    []LineItem
	store    *Store
}

// NewCart returns an empty cart reading products from s.
func NewCart(id int, customer string, s *Store) *Cart {
	return &Cart{ID: id, Customer: customer, store: s}
}

// ErrUnknownSKU is returned by Add for a product the store does not have.
var ErrUnknownSKU = errors.New("unknown SKU")

// Add puts qty units of a product into the cart (merging with an existing line); it reads the
// product from the store (one (*Store).Get call). ~1-2 us.
//
//go:noinline
func (c *Cart) Add(sku string, qty int) error {
	t := instr.CartAdd.Enter()
	p, ok := c.store.Get(sku)
	if !ok {
		instr.CartAdd.Exit(t)
		return fmt.Errorf("cart %d: %w %q", c.ID, ErrUnknownSKU, sku)
	}
	for i := range c.Lines {
		if c.Lines[i].SKU == sku {
			c.Lines[i].Qty += qty
			instr.CartAdd.Exit(t)
			return nil
		}
	}
	c.Lines = append(c.Lines, LineItem{
		SKU: p.SKU, Name: p.Name, Category: p.Category, Qty: qty, Unit: p.Price, WeightKg: p.WeightKg,
	})
	instr.CartAdd.Exit(t)
	return nil
}

// Checkout turns the cart into an order: validation (ValidateOrder, which panics on a bad order;
// recovered here, via checkOrder, into an error), pricing (pricing.Apply and the rules), totals
// (SumBy), shipping, the invoice (Order.Invoice) and a simulated payment authorisation (a
// fraud-model score and a signature). ~0.7 ms.
//
//go:noinline
func (c *Cart) Checkout(rules []pricing.Rule) (Order, error) {
	t := instr.CartCheckout.Enter()
	o := Order{
		ID: c.ID, Customer: c.Customer, Address: c.Address, Region: c.Region, Coupon: c.Coupon,
		Lines: append([]LineItem(nil), c.Lines...),
	}
	if err := checkOrder(&o); err != nil {
		instr.CartCheckout.Exit(t)
		return Order{}, err
	}
	q := pricing.Quote{Region: o.Region, Coupon: o.Coupon, Lines: make([]pricing.Line, len(o.Lines))}
	for i, l := range o.Lines {
		q.Lines[i] = pricing.Line{SKU: l.SKU, Category: l.Category, Qty: l.Qty, Unit: l.Unit}
	}
	o.Total = pricing.Apply(rules, &q)
	o.Subtotal, o.Discount, o.Tax = q.Subtotal, q.Discount, q.Tax
	if sum := SumBy(o.Lines, lineTotal); sum != o.Subtotal {
		panic(fmt.Sprintf("order %d: subtotal %d != sum of lines %d", o.ID, o.Subtotal, sum))
	}
	o.WeightKg = SumBy(o.Lines, lineWeight)
	o.Shipping = shipping(o.WeightKg, o.Region)
	o.Total += o.Shipping
	o.Signature = authorize(&o, o.Invoice())
	instr.CartCheckout.Exit(t)
	return o, nil
}

// checkOrder runs ValidateOrder and turns its panic into an error.
func checkOrder(o *Order) (err error) {
	defer func() {
		if r := recover(); r != nil {
			bad, ok := r.(*InvalidOrderError)
			if !ok {
				panic(r)
			}
			err = bad
		}
	}()
	ValidateOrder(o)
	return nil
}

func lineTotal(l LineItem) pricing.Cents { return l.Unit * pricing.Cents(l.Qty) }
func lineWeight(l LineItem) float64     { return l.WeightKg * float64(l.Qty) }
func lineUnits(l LineItem) int64        { return int64(l.Qty) }

func shipping(kg float64, region string) pricing.Cents {
	base := pricing.Cents(490)
	if region != "DE" {
		base = 990
	}
	return base + pricing.Cents(kg*120)
}

// authorize is the simulated payment authorisation: a fraud-model score of the order (a small
// dense network evaluated fraudRounds times, ~0.6 ms, the bulk of a checkout) and a SHA-256
// signature of the invoice and the score.
func authorize(o *Order, invoice string) [32]byte {
	var x [16]float64
	x[0] = float64(o.Subtotal) / 1e4
	x[1] = float64(o.Discount) / 1e3
	x[2] = o.WeightKg
	x[3] = float64(len(o.Lines))
	for i, c := range []byte(o.Customer) {
		x[4+i%12] += float64(c) / 128
	}
	score := 0.0
	for r := 0; r < fraudRounds; r++ {
		var y [16]float64
		for i := range y {
			w := fraudWeights[i]
			s := 0.0
			for j := range x {
				s += w[j] * x[j]
			}
			if s < 0 {
				s *= 0.01 // leaky ReLU
			}
			y[i] = s
		}
		norm := 0.0
		for i := range y {
			norm += y[i] * y[i]
		}
		norm = 1 / (1 + norm)
		for i := range x {
			x[i] = y[i]*norm + x[i]*0.5
		}
		score += x[r%16]
	}
	h := sha256.New()
	h.Write([]byte(invoice))
	h.Write([]byte(strconv.FormatFloat(score, 'e', 12, 64)))
	var sig [32]byte
	h.Sum(sig[:0])
	return sig
}

const fraudRounds = 4000

var fraudWeights = func() (w [16][16]float64) {
	seed := uint64(0x9e3779b97f4a7c15)
	for i := range w {
		for j := range w[i] {
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			w[i][j] = float64(int64(seed%2001)-1000) / 4000
		}
	}
	return w
}()
