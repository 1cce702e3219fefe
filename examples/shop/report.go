package shop

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"sort"
	"strings"
	"sync"

	"example.com/shop/internal/instr"
	"example.com/shop/pricing"
)

// Report summarises a window of orders.
type Report struct {
	Orders      int
	Units       int64
	Revenue     pricing.Cents
	Departments []DepartmentLine
	Top         []ProductLine
	Text        string
	Archived    int // bytes of the gzip-compressed text
}

// DepartmentLine is one top-level category of a report.
type DepartmentLine struct {
	Name  string
	Stats CatStats
}

// ProductLine is one of the best-selling products of a report.
type ProductLine struct {
	SKU string
	Sales
}

// GenerateReport aggregates orders by product, walks each department of the category tree on
// its own goroutine ((*Category).Walk), ranks the products, renders the report as text and
// archives it (gzip). The slow one: ~5-7 ms for 500 orders.
//
//go:noinline
func GenerateReport(orders []Order, root *Category) Report {
	t := instr.GenerateReport.Enter()
	r := Report{Orders: len(orders)}
	sales := make(map[string]Sales)
	for i := range orders {
		o := &orders[i]
		for _, l := range o.Lines {
			s := sales[l.SKU]
			s.Units += int64(l.Qty)
			s.Revenue += lineTotal(l)
			sales[l.SKU] = s
		}
		r.Units += SumBy(o.Lines, lineUnits)
		r.Revenue += o.Total
	}

	r.Departments = make([]DepartmentLine, len(root.Children))
	var wg sync.WaitGroup
	for i, d := range root.Children {
		i, d := i, d
		wg.Add(1)
		go func() {
			r.Departments[i] = DepartmentLine{Name: d.Name, Stats: d.Walk(1, sales)}
			wg.Done()
		}()
	}
	wg.Wait()

	r.Top = make([]ProductLine, 0, len(sales))
	for sku, s := range sales {
		r.Top = append(r.Top, ProductLine{sku, s})
	}
	sort.Slice(r.Top, func(i, j int) bool {
		a, b := r.Top[i], r.Top[j]
		if a.Revenue != b.Revenue {
			return a.Revenue > b.Revenue
		}
		return a.SKU < b.SKU
	})
	if len(r.Top) > 25 {
		r.Top = r.Top[:25]
	}

	var b strings.Builder
	fmt.Fprintf(&b, "SALES REPORT: %d orders, %d units, revenue %s\n\n", r.Orders, r.Units, money(r.Revenue))
	for _, d := range r.Departments {
		fmt.Fprintf(&b, "%-14s categories %4d  products %4d  sold %4d  units %6d  revenue %12s  depth %d  digest %016x\n",
			d.Name, d.Stats.Categories, d.Stats.Products, d.Stats.Sold, d.Stats.Units, money(d.Stats.Revenue), d.Stats.MaxDepth, d.Stats.Digest)
	}
	b.WriteString("\nTOP PRODUCTS\n")
	for i, p := range r.Top {
		fmt.Fprintf(&b, "%2d. %-10s units %5d  revenue %12s\n", i+1, p.SKU, p.Units, money(p.Revenue))
	}
	b.WriteString("\nORDERS\n")
	for i := range orders {
		o := &orders[i]
		fmt.Fprintf(&b, "%06d %-12s %-3s lines %2d  subtotal %10s  discount %9s  tax %9s  shipping %7s  total %10s  %x\n",
			o.ID, o.Customer, o.Region, len(o.Lines), money(o.Subtotal), money(o.Discount), money(o.Tax),
			money(o.Shipping), money(o.Total), o.Signature[:8])
	}
	r.Text = b.String()

	var archive bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&archive, gzip.DefaultCompression)
	zw.Write([]byte(r.Text))
	zw.Close()
	r.Archived = archive.Len()
	instr.GenerateReport.Exit(t)
	return r
}
