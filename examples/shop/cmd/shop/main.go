// Command shop is the batch driver of the shop example: it checks out -orders random carts in
// batches (fan-out over goroutines), reloads the pricing rules now and then, restocks, and
// writes a sales report (of the last 500 orders) every 100 orders. At the end it prints one line to stdout:
//
//	GATE_CALLS {"example.com/shop.(*Cart).Checkout":2000,...}
//
// the exact number of calls of every instrumented function. A summary goes to stderr.
// SHOP_SLOW=NAME=FACTOR,... slows functions down (see README.md).
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"time"

	"example.com/shop"
	"example.com/shop/internal/demo"
	"example.com/shop/internal/instr"
	"example.com/shop/pricing"
)

func main() {
	orders := flag.Int("orders", 2000, "number of carts to check out")
	seed := flag.Int64("seed", 1, "random seed (same seed, same calls)")
	batch := flag.Int("batch", 25, "carts per (*Store).CheckoutBatch call")
	workers := flag.Int("workers", defaultWorkers(), "goroutines per batch (default: GOMAXPROCS, at least 2)")
	quiet := flag.Bool("q", false, "no summary on stderr")
	flag.Parse()
	if *orders < 0 || *batch < 1 || *workers < 1 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: shop [-orders N] [-seed S] [-batch B] [-workers W] [-q]")
		os.Exit(2)
	}
	instr.MustSetup("shop")

	start := time.Now()
	rng := rand.New(rand.NewSource(*seed))
	w := demo.NewWorld(*seed)
	rules := pricing.NewRules(w.Config)

	const reportEvery, reportWindow = 100, 500
	var done []shop.Order
	invalid, reports, nextReport := 0, 0, reportEvery
	var lastReport shop.Report
	for b := 0; b*(*batch) < *orders; b++ {
		n := *orders - b*(*batch)
		if n > *batch {
			n = *batch
		}
		carts := make([]*shop.Cart, n)
		for i := range carts {
			carts[i] = demo.Cart(w.Store, demo.RandomCart(rng, b*(*batch)+i))
		}
		if b > 0 && b%8 == 0 { // configuration reload
			rules = pricing.NewRules(w.Config)
		}
		for _, r := range w.Store.CheckoutBatch(carts, rules, *workers) {
			if r.Err != nil {
				invalid++
				continue
			}
			done = append(done, r.Order)
		}
		demo.Restock(rng, w.Store, 5)
		processed := b*(*batch) + n
		if processed >= nextReport || processed == *orders {
			from := len(done) - reportWindow
			if from < 0 {
				from = 0
			}
			lastReport = shop.GenerateReport(done[from:], w.Catalog)
			reports++
			for nextReport <= processed {
				nextReport += reportEvery
			}
		}
	}
	if !*quiet {
		fmt.Fprintf(os.Stderr, "shop: %d orders (%d invalid), %d reports (last: %d orders, %d units, %d bytes archived), %d products, %v\n",
			*orders, invalid, reports, lastReport.Orders, lastReport.Units, lastReport.Archived, shop.Len(w.Store),
			time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprint(os.Stderr, instr.TimingTable()) // SHOP_TIMING=1 only
	fmt.Println(instr.CallsLine())
}

func defaultWorkers() int {
	if n := runtime.GOMAXPROCS(0); n > 2 {
		return n
	}
	return 2
}
