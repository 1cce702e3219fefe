// Command shopd is the service form of the shop example: an HTTP server on a loopback address.
//
//	GET  /healthz              "ok"
//	GET  /products/{sku}       the product ((*Store).Get); 404 when unknown
//	PUT  /products/{sku}       {"price": cents}: reprice ((*Store).Get + (*Store).Put)
//	POST /checkout             a cart (demo.CartSpec JSON): (*Cart).Add per item, (*Cart).Checkout;
//	                           200 with the order, 422 when the order is invalid
//	POST /batch                {"carts": [CartSpec...]}: (*Store).CheckoutBatch
//	GET  /report               GenerateReport over the last 500 orders
//	POST /reload               rebuild the pricing rules (pricing.NewRules)
//
// On SIGTERM or SIGINT it shuts down cleanly (in-flight requests finish) and prints one line
// to stdout, `GATE_CALLS {...}`: the exact number of calls of every instrumented function since
// start, then exits 0. SHOP_SLOW works as for cmd/shop.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"example.com/shop"
	"example.com/shop/internal/demo"
	"example.com/shop/internal/instr"
	"example.com/shop/pricing"
)

const reportWindow = 500

type server struct {
	world   *demo.World
	workers int

	mu     sync.Mutex
	rules  []pricing.Rule
	recent []shop.Order // ring of the last reportWindow orders
	next   int
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "listen address (loopback only)")
	seed := flag.Int64("seed", 1, "random seed of the catalog")
	workers := flag.Int("workers", 0, "goroutines per /batch (default: GOMAXPROCS, at least 2)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: shopd [-addr 127.0.0.1:PORT] [-seed S] [-workers W]")
		os.Exit(2)
	}
	if err := checkLoopback(*addr); err != nil {
		fmt.Fprintf(os.Stderr, "shopd: %v\n", err)
		os.Exit(2)
	}
	instr.MustSetup("shopd")
	if *workers <= 0 {
		*workers = runtime.GOMAXPROCS(0)
		if *workers < 2 {
			*workers = 2
		}
	}

	s := &server{world: demo.NewWorld(*seed), workers: *workers}
	s.rules = pricing.NewRules(s.world.Config)
	s.recent = demo.HistoricalOrders(*seed, reportWindow)

	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("/products/", s.product)
	mux.HandleFunc("/checkout", s.checkout)
	mux.HandleFunc("/batch", s.batch)
	mux.HandleFunc("/report", s.report)
	mux.HandleFunc("/reload", s.reload)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "shopd: %v\n", err)
		os.Exit(1)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "shopd: listening on %s (pid %d)\n", ln.Addr(), os.Getpid())

	select {
	case sig := <-sigs:
		fmt.Fprintf(os.Stderr, "shopd: %v, shutting down\n", sig)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := srv.Shutdown(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "shopd: shutdown: %v\n", err)
		}
	case err := <-served:
		fmt.Fprintf(os.Stderr, "shopd: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprint(os.Stderr, instr.TimingTable()) // SHOP_TIMING=1 only
	fmt.Println(instr.CallsLine())
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-addr %q: only loopback addresses (127.0.0.1, ::1, localhost) are allowed", addr)
	}
	return nil
}

func (s *server) currentRules() []pricing.Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rules
}

func (s *server) record(o shop.Order) {
	s.mu.Lock()
	s.recent[s.next] = o
	s.next = (s.next + 1) % len(s.recent)
	s.mu.Unlock()
}

func (s *server) product(w http.ResponseWriter, r *http.Request) {
	sku := strings.TrimPrefix(r.URL.Path, "/products/")
	p, ok := s.world.Store.Get(sku)
	if !ok {
		httpError(w, http.StatusNotFound, "unknown SKU "+sku)
		return
	}
	switch r.Method {
	case http.MethodGet:
	case http.MethodPut:
		var body struct {
			Price pricing.Cents `json:"price"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Price <= 0 {
			httpError(w, http.StatusBadRequest, "want {\"price\": cents > 0}")
			return
		}
		p.Price = body.Price
		s.world.Store.Put(p)
	default:
		httpError(w, http.StatusMethodNotAllowed, "GET or PUT")
		return
	}
	writeJSON(w, p)
}

type orderJSON struct {
	ID      int           `json:"id"`
	Total   pricing.Cents `json:"total"`
	Lines   int           `json:"lines"`
	Invoice string        `json:"invoice,omitempty"`
	Error   string        `json:"error,omitempty"`
}

func (s *server) checkout(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		httpError(w, http.StatusMethodNotAllowed, "POST")
		return
	}
	var spec demo.CartSpec
	if err := json.NewDecoder(r.Body).Decode(&spec); err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	o, err := demo.Cart(s.world.Store, spec).Checkout(s.currentRules())
	if err != nil {
		var bad *shop.InvalidOrderError
		if errors.As(err, &bad) {
			writeJSONStatus(w, http.StatusUnprocessableEntity, orderJSON{ID: spec.ID, Error: err.Error()})
			return
		}
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.record(o)
	writeJSON(w, orderJSON{ID: o.ID, Total: o.Total, Lines: len(o.Lines)})
}

func (s *server) batch(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		httpError(w, http.StatusMethodNotAllowed, "POST")
		return
	}
	var body struct {
		Carts []demo.CartSpec `json:"carts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	carts := make([]*shop.Cart, len(body.Carts))
	for i, spec := range body.Carts {
		carts[i] = demo.Cart(s.world.Store, spec)
	}
	out := make([]orderJSON, 0, len(carts))
	for _, res := range s.world.Store.CheckoutBatch(carts, s.currentRules(), s.workers) {
		if res.Err != nil {
			out = append(out, orderJSON{Error: res.Err.Error()})
			continue
		}
		s.record(res.Order)
		out = append(out, orderJSON{ID: res.Order.ID, Total: res.Order.Total, Lines: len(res.Order.Lines)})
	}
	writeJSON(w, out)
}

func (s *server) report(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	window := append([]shop.Order(nil), s.recent...)
	s.mu.Unlock()
	rep := shop.GenerateReport(window, s.world.Catalog)
	head := rep.Text
	if i := strings.Index(head, "\nORDERS\n"); i >= 0 {
		head = head[:i]
	}
	writeJSON(w, map[string]interface{}{"orders": rep.Orders, "units": rep.Units, "revenue": rep.Revenue, "archived": rep.Archived, "text": head})
}

func (s *server) reload(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		httpError(w, http.StatusMethodNotAllowed, "POST")
		return
	}
	rules := pricing.NewRules(s.world.Config)
	s.mu.Lock()
	s.rules = rules
	s.mu.Unlock()
	io.WriteString(w, "reloaded\n")
}

func writeJSON(w http.ResponseWriter, v interface{}) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, code int, v interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		fmt.Fprintf(os.Stderr, "shopd: writing response: %v\n", err)
	}
}

func httpError(w http.ResponseWriter, code int, msg string) {
	writeJSONStatus(w, code, map[string]string{"error": msg})
}
