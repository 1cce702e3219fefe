package shop

import (
	"fmt"
	"strconv"
	"strings"

	"example.com/shop/internal/instr"
	"example.com/shop/pricing"
)

// Order is a checked-out cart.
type Order struct {
	ID       int
	Customer string
	Address  string
	Region   string
	Coupon   string
	Lines    []LineItem
	Subtotal pricing.Cents
	Discount pricing.Cents
	Tax      pricing.Cents
	Shipping pricing.Cents
	Total    pricing.Cents
	WeightKg float64

	Signature [32]byte
}

// InvalidOrderError is the panic value of ValidateOrder.
type InvalidOrderError struct {
	OrderID int
	Reason  string
}

func (e *InvalidOrderError) Error() string {
	return "order " + strconv.Itoa(e.OrderID) + " is invalid: " + e.Reason
}

// Order limits checked by ValidateOrder.
const (
	MaxQty   = 99
	MaxLines = 20
)

// ValidateOrder panics with an *InvalidOrderError when the order cannot be accepted (no lines,
// too many lines, a quantity outside 1..MaxQty, no address, a malformed coupon); its caller
// recovers. ~1 us.
//
//go:noinline
func ValidateOrder(o *Order) {
	t := instr.ValidateOrder.Enter()
	reason := ""
	switch {
	case len(o.Lines) == 0:
		reason = "no lines"
	case len(o.Lines) > MaxLines:
		reason = fmt.Sprintf("%d lines, at most %d allowed", len(o.Lines), MaxLines)
	case strings.TrimSpace(o.Address) == "":
		reason = "no shipping address"
	}
	seen := make(map[string]bool, len(o.Lines))
	for _, l := range o.Lines {
		if reason != "" {
			break
		}
		switch {
		case l.Qty < 1 || l.Qty > MaxQty:
			reason = fmt.Sprintf("quantity %d of %s outside 1..%d", l.Qty, l.SKU, MaxQty)
		case l.Unit < 0:
			reason = "negative price of " + l.SKU
		case seen[l.SKU]:
			reason = "duplicate line " + l.SKU
		}
		seen[l.SKU] = true
	}
	if reason == "" && o.Coupon != "" {
		for _, r := range o.Coupon {
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				reason = "malformed coupon " + strconv.Quote(o.Coupon)
				break
			}
		}
	}
	// Exit before panicking: the body time of a slowed call is extended on both paths.
	instr.ValidateOrder.Exit(t)
	if reason != "" {
		panic(&InvalidOrderError{OrderID: o.ID, Reason: reason})
	}
}

// Invoice renders the order as text (a value-receiver method: the order is copied). ~2-5 us.
//
//go:noinline
func (o Order) Invoice() string {
	t := instr.OrderInvoice.Enter()
	var b strings.Builder
	b.Grow(128 + 96*len(o.Lines))
	fmt.Fprintf(&b, "INVOICE %06d\n%s\n%s (%s)\n", o.ID, o.Customer, o.Address, o.Region)
	for i, l := range o.Lines {
		fmt.Fprintf(&b, "%3d  %-10s %-28.28s %3d x %10s = %10s\n",
			i+1, l.SKU, l.Name, l.Qty, money(l.Unit), money(lineTotal(l)))
	}
	fmt.Fprintf(&b, "subtotal %s  discount -%s  tax %s  shipping %s (%.2f kg)\nTOTAL %s\n",
		money(o.Subtotal), money(o.Discount), money(o.Tax), money(o.Shipping), o.WeightKg,
		money(o.Subtotal-o.Discount+o.Tax+o.Shipping))
	s := b.String()
	instr.OrderInvoice.Exit(t)
	return s
}

func money(c pricing.Cents) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	cents := strconv.FormatInt(int64(c%100), 10)
	if len(cents) == 1 {
		cents = "0" + cents
	}
	return sign + strconv.FormatInt(int64(c/100), 10) + "." + cents
}
