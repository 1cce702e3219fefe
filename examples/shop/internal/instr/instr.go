// Package instr is the bookkeeping shared by every instrumented function of the shop example:
// an exact call counter per function (the truth the gate's probe counts are checked against,
// printed as one GATE_CALLS line) and the SHOP_SLOW knob that makes chosen functions slower.
//
// Usage inside an instrumented function (no defer: a deferred call with arguments becomes an
// extra ".deferwrap1" function symbol on Go >= 1.22, which would pollute the package's globs):
//
//	t := instr.CartAdd.Enter()
//	...body...
//	instr.CartAdd.Exit(t) // before every return
//
// When the function is not slowed (the normal case) Enter is one atomic add plus one load of a
// plain bool, and Exit is a compare of a zero int64: both are inlined.
package instr

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Func is one instrumented function.
type Func struct {
	name   string // the exact Go symbol name of the function
	calls  atomic.Int64
	armed  bool    // slowed or timing: Enter must read the clock. Written once by Setup.
	slowed bool    // factor > 1
	factor float64 //

	mu    sync.Mutex // timing mode only
	times []int64    // timing mode only: every call's elapsed ns
}

// The instrumented functions.
var (
	StoreGet                 = &Func{name: "example.com/shop.(*Store).Get"}
	StorePut                 = &Func{name: "example.com/shop.(*Store).Put"}
	StoreCheckoutBatch       = &Func{name: "example.com/shop.(*Store).CheckoutBatch"}
	StoreCheckoutBatchWorker = &Func{name: "example.com/shop.(*Store).CheckoutBatch.func1"}
	CartAdd                  = &Func{name: "example.com/shop.(*Cart).Add"}
	CartCheckout             = &Func{name: "example.com/shop.(*Cart).Checkout"}
	OrderInvoice             = &Func{name: "example.com/shop.Order.Invoice"}
	ValidateOrder            = &Func{name: "example.com/shop.ValidateOrder"}
	CategoryWalk             = &Func{name: "example.com/shop.(*Category).Walk"}
	GenerateReport           = &Func{name: "example.com/shop.GenerateReport"}
	SumByInt64               = &Func{name: "example.com/shop.SumBy[go.shape.int64" + ShapeSuffix + "]"}
	SumByFloat64             = &Func{name: "example.com/shop.SumBy[go.shape.float64" + ShapeSuffix + "]"}
	PricingNewRules          = &Func{name: "example.com/shop/pricing.NewRules"}
	PricingCategoryRule      = &Func{name: "example.com/shop/pricing.NewRules.func1"}
	PricingBulkRule          = &Func{name: "example.com/shop/pricing.NewRules.func2"}
	PricingCouponRule        = &Func{name: "example.com/shop/pricing.NewRules.func3"}
	PricingApply             = &Func{name: "example.com/shop/pricing.Apply"}
)

var funcs = []*Func{
	StoreGet, StorePut, StoreCheckoutBatch, StoreCheckoutBatchWorker, CartAdd, CartCheckout,
	OrderInvoice, ValidateOrder, CategoryWalk, GenerateReport, SumByInt64, SumByFloat64,
	PricingNewRules, PricingCategoryRule, PricingBulkRule, PricingCouponRule, PricingApply,
}

var epoch = time.Now()

// clock is a monotonic clock in ns (never 0).
func clock() int64 { return int64(time.Since(epoch)) + 1 }

// Enter counts one call of f. It returns the start time when f is slowed (or timed), else 0.
func (f *Func) Enter() int64 {
	f.calls.Add(1)
	if f.armed {
		return startClock()
	}
	return 0
}

// startClock is kept out of line so that Enter stays small enough to be inlined.
//
//go:noinline
func startClock() int64 { return clock() }

// Exit ends a call started with Enter: when slowed, it busy-waits (factor-1) x the elapsed body
// time.
func (f *Func) Exit(start int64) {
	if start != 0 {
		f.exit(start, 0)
	}
}

// ExitSelf is Exit for a recursive function. children is the sum of what ExitSelf returned in
// its direct recursive calls (they slowed themselves already); it returns the time the call took
// when slowed (else 0). Waiting (factor-1) x the self time at every level makes every call's
// inclusive time factor x its normal time, instead of compounding with the depth.
func (f *Func) ExitSelf(start, children int64) (spent int64) {
	if start != 0 {
		return f.exit(start, children)
	}
	return 0
}

// clockCost is the cost of one clock call in ns, measured by Setup when a function is slowed. The
// two clock reads of a slowed call are themselves extra time: they are subtracted from the
// measured body and counted as part of the wait, so that a 100 ns function slowed 2x takes
// ~200 ns, not 200 ns plus the reads.
var clockCost int64

func (f *Func) exit(start, children int64) (spent int64) {
	now := clock()
	if f.slowed {
		// [start, now] holds about one read (half of each); outside the body we spent ~2 (the
		// start and end reads) plus on average half a read of overshoot in the wait loop.
		body := now - start - children - clockCost
		wait := int64(float64(body)*(f.factor-1)) - 2*clockCost - clockCost/2
		if body > 0 && wait > 0 {
			deadline := now + wait
			for now < deadline { // busy-wait, not sleep: the extra time must show as latency reliably
				now = clock()
			}
		}
	}
	if timing {
		f.mu.Lock()
		f.times = append(f.times, now-start)
		f.mu.Unlock()
	}
	return now - start + clockCost
}

func calibrateClock() int64 {
	best := int64(1 << 62)
	for round := 0; round < 5; round++ {
		const reads = 2000
		t0 := clock()
		for i := 0; i < reads-1; i++ {
			clock()
		}
		if per := (clock() - t0) / reads; per < best {
			best = per
		}
	}
	return best
}

// timing is set by Setup from SHOP_TIMING=1: record every call's duration for TimingTable.
var timing bool

// TimingTable renders the latency of every called function (timing mode only; else "").
func TimingTable() string {
	if !timing {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-50s %8s %10s %10s %10s %10s\n", "function", "calls", "mean", "p50", "p90", "p99")
	for _, name := range Names() {
		for _, f := range funcs {
			if f.name != name || len(f.times) == 0 {
				continue
			}
			ts := append([]int64(nil), f.times...)
			sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
			var sum int64
			for _, t := range ts {
				sum += t
			}
			q := func(p float64) time.Duration { return time.Duration(ts[int(p*float64(len(ts)-1))]) }
			fmt.Fprintf(&b, "%-50s %8d %10v %10v %10v %10v\n", name, len(ts),
				time.Duration(sum/int64(len(ts))).Round(10*time.Nanosecond), q(0.5).Round(10*time.Nanosecond),
				q(0.9).Round(10*time.Nanosecond), q(0.99).Round(10*time.Nanosecond))
		}
	}
	return b.String()
}

// Names returns the symbol names of every instrumented function, sorted.
func Names() []string {
	names := make([]string, 0, len(funcs))
	for _, f := range funcs {
		names = append(names, f.name)
	}
	sort.Strings(names)
	return names
}

// Calls returns the number of calls per function so far.
func Calls() map[string]int64 {
	m := make(map[string]int64, len(funcs))
	for _, f := range funcs {
		m[f.name] = f.calls.Load()
	}
	return m
}

// CallsLine returns the `GATE_CALLS {...}` line (no newline): symbol name -> calls.
func CallsLine() string {
	b, err := json.Marshal(Calls()) // map keys come out sorted
	if err != nil {
		panic(err)
	}
	return "GATE_CALLS " + string(b)
}

// matches reports whether the user-written name means function f: the full symbol name, the
// short form after the last '/' ("shop.(*Cart).Checkout"), and for generic instantiations also
// the version-independent "[...]" form ("shop.SumBy[...]" names every instantiation).
func (f *Func) matches(name string) bool {
	if name == f.name || name == short(f.name) {
		return true
	}
	if i := strings.IndexByte(f.name, '['); i >= 0 && strings.HasSuffix(f.name, "]") {
		generic := f.name[:i] + "[...]"
		return name == generic || name == short(generic)
	}
	return false
}

func short(name string) string {
	// The package path ends at the last '/' before any '[' (shape names could contain '/').
	head := name
	if i := strings.IndexByte(head, '['); i >= 0 {
		head = head[:i]
	}
	return name[strings.LastIndexByte(head, '/')+1:]
}

// Setup parses SHOP_SLOW ("NAME=FACTOR,NAME=FACTOR"; FACTOR a number >= 1) and arms the slowed
// functions; SHOP_TIMING=1 records every call's duration (see TimingTable). Call it once at the
// start of main, before any instrumented function runs.
func Setup() error {
	timing = os.Getenv("SHOP_TIMING") == "1"
	for _, f := range funcs {
		f.armed = timing
	}
	spec := os.Getenv("SHOP_SLOW")
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		eq := strings.LastIndexByte(entry, '=')
		if eq < 0 {
			return fmt.Errorf("SHOP_SLOW: %q is not NAME=FACTOR", entry)
		}
		name, val := strings.TrimSpace(entry[:eq]), strings.TrimSpace(entry[eq+1:])
		factor, err := strconv.ParseFloat(val, 64)
		if err != nil || !(factor >= 1 && factor <= 1000) { // also rejects NaN
			return fmt.Errorf("SHOP_SLOW: bad factor %q for %s (want a number from 1 to 1000)", val, name)
		}
		found := false
		for _, f := range funcs {
			if f.matches(name) {
				found = true
				f.factor = factor
				f.slowed = factor > 1
				f.armed = timing || factor > 1
				if factor > 1 && clockCost == 0 {
					clockCost = calibrateClock()
				}
			}
		}
		if !found {
			return fmt.Errorf("SHOP_SLOW: unknown function %q; valid functions (full name, or the part after the last '/'; generic ones also as NAME[...]):\n  %s",
				name, strings.Join(Names(), "\n  "))
		}
	}
	return nil
}

// MustSetup is Setup that prints the error to stderr and exits with status 2.
func MustSetup(prog string) {
	if err := Setup(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", prog, err)
		os.Exit(2)
	}
}
