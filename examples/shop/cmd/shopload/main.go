// Command shopload drives shopd: it sends exactly -requests requests (a fixed mix of checkouts,
// product reads and writes, batches, reports and rule reloads; request i is the same in every
// run) from -concurrency goroutines to -addr on loopback (host:port, or http://host:port as gate's
// {url} gives it), then exits. Exit status 0 when every
// response was the expected one, 1 when the server failed (transport error, 5xx, an unexpected
// status), 2 on bad usage. A summary goes to stderr.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"example.com/shop/internal/demo"
)

type request struct {
	kind   string
	method string
	path   string
	body   interface{}
	want   []int // acceptable status codes
}

// plan returns request i: deterministic, whatever the concurrency.
func plan(seed int64, i int) request {
	rng := rand.New(rand.NewSource(seed*1_000_003 + int64(i)))
	switch {
	case i%250 == 125:
		return request{"reload", http.MethodPost, "/reload", nil, []int{200}}
	case i%100 == 99:
		return request{"report", http.MethodGet, "/report", nil, []int{200}}
	}
	switch i % 20 {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9:
		// 422: the cart is invalid (demo.RandomCart makes ~1 in 8 invalid, or all its SKUs were unknown).
		return request{"checkout", http.MethodPost, "/checkout", demo.RandomCart(rng, i), []int{200, 422}}
	case 15:
		sku := demo.SKU(rng.Intn(demo.NumProducts))
		return request{"reprice", http.MethodPut, "/products/" + sku, map[string]int{"price": 199 + rng.Intn(50000)}, []int{200}}
	case 18:
		carts := make([]demo.CartSpec, 8)
		for k := range carts {
			carts[k] = demo.RandomCart(rng, i*10+k)
		}
		return request{"batch", http.MethodPost, "/batch", map[string]interface{}{"carts": carts}, []int{200}}
	default:
		if rng.Intn(30) == 0 {
			return request{"product", http.MethodGet, "/products/SKU-NONE" + fmt.Sprint(i), nil, []int{404}}
		}
		return request{"product", http.MethodGet, "/products/" + demo.SKU(rng.Intn(demo.NumProducts)), nil, []int{200}}
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "shopd address (loopback only): host:port or http://host:port")
	requests := flag.Int("requests", 1000, "number of requests to send")
	concurrency := flag.Int("concurrency", 4, "parallel connections")
	seed := flag.Int64("seed", 1, "random seed")
	wait := flag.Duration("wait", 10*time.Second, "how long to wait for the server to accept connections")
	flag.Parse()
	if *requests < 0 || *concurrency < 1 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: shopload [-addr 127.0.0.1:PORT] [-requests N] [-concurrency C] [-seed S] [-wait D]")
		os.Exit(2)
	}
	*addr = strings.TrimSuffix(strings.TrimPrefix(*addr, "http://"), "/")
	host, _, err := net.SplitHostPort(*addr)
	if ip := net.ParseIP(host); err != nil || host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(os.Stderr, "shopload: -addr %q: want a loopback host:port\n", *addr)
		os.Exit(2)
	}
	base := "http://" + *addr
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: *concurrency, MaxIdleConns: *concurrency},
	}

	if err := waitReady(client, base, *wait); err != nil {
		fmt.Fprintf(os.Stderr, "shopload: server not ready: %v\n", err)
		os.Exit(1)
	}

	start := time.Now()
	var next int64 = -1
	var mu sync.Mutex
	var failures []string
	failed := 0
	byKind := map[string]int{}
	var lat []time.Duration
	var wg sync.WaitGroup
	for c := 0; c < *concurrency; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(atomic.AddInt64(&next, 1))
				if i >= *requests {
					return
				}
				req := plan(*seed, i)
				t0 := time.Now()
				code, err := send(client, base, req)
				d := time.Since(t0)
				mu.Lock()
				byKind[req.kind]++
				lat = append(lat, d)
				if err == nil && !contains(req.want, code) {
					err = fmt.Errorf("status %d, want %v", code, req.want)
				}
				if err != nil {
					failed++
					if len(failures) < 5 {
						failures = append(failures, fmt.Sprintf("request %d (%s %s): %v", i, req.method, req.path, err))
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	mix := ""
	for _, k := range kinds {
		mix += fmt.Sprintf(" %s=%d", k, byKind[k])
	}
	p := func(q float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(q*float64(len(lat)-1))].Round(time.Microsecond)
	}
	fmt.Fprintf(os.Stderr, "shopload: %d requests in %v (%.0f/s), p50 %v p99 %v,%s, %d failed\n",
		*requests, elapsed.Round(time.Millisecond), float64(*requests)/elapsed.Seconds(), p(0.5), p(0.99), mix, failed)
	for _, f := range failures {
		fmt.Fprintf(os.Stderr, "shopload: %s\n", f)
	}
	if failed > 0 {
		os.Exit(1)
	}
}

func send(client *http.Client, base string, req request) (int, error) {
	var body io.Reader
	if req.body != nil {
		b, err := json.Marshal(req.body)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	hr, err := http.NewRequest(req.method, base+req.path, body)
	if err != nil {
		return 0, err
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(hr)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return resp.StatusCode, fmt.Errorf("reading the response: %v", err)
	}
	return resp.StatusCode, nil
}

func waitReady(client *http.Client, base string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/healthz: status %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
