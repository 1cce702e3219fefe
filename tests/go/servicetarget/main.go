// Command servicetarget is the service the runner's end-to-end tests drive: an HTTP server whose
// handler calls main.handle (counted), a load driver, and a foreign listener that is not it.
//
//	servicetarget serve   -addr A [-reuseport] [-die-after N] [-startup N]   the service (handle per
//	                      request; startup N times before it listens: work done only at start;
//	                      -exit-after-startup: exit 0 then)
//	servicetarget load    -addr A -n N [-fail]                 N sequential GETs; exit 4 on an error
//	servicetarget foreign -addr A [-reuseport] [-lifetime D]   answers on A without calling handle
//	servicetarget idle                                         a workload that calls nothing declared
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

var sink uint64

// handle is called once per request the service answers.
//
//go:noinline
func handle(n uint64) uint64 {
	s := n
	for i := 0; i < 200; i++ {
		s = s*31 + uint64(i)
	}
	return s
}

// startup is called only while the service starts (serve -startup N), never per request.
//
//go:noinline
func startup(n uint64) uint64 {
	s := n
	for i := 0; i < 200; i++ {
		s = s*17 + uint64(i)
	}
	return s
}

// neverCalled is declared in tests and reached by no mode: the "one function never called" case.
//
//go:noinline
func neverCalled(n uint64) uint64 { return n * 7 }

// SO_REUSEPORT on Linux (package syscall lacks it; golang.org/x/sys/unix would be a dependency).
const soReusePort = 0xf

func listen(addr string, reuseport bool) net.Listener {
	lc := net.ListenConfig{}
	if reuseport {
		lc.Control = func(network, address string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soReusePort, 1)
			})
			if err != nil {
				return err
			}
			return serr
		}
	}
	l, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "listen %s: %v\n", addr, err)
		os.Exit(2)
	}
	return l
}

func serve(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "")
	reuse := fs.Bool("reuseport", false, "")
	dieAfter := fs.Int64("die-after", 0, "exit 9 after this many requests (0: never)")
	startups := fs.Int("startup", 0, "call startup this many times before listening")
	startOnly := fs.Bool("exit-after-startup", false, "exit 0 after the startup calls (a control: they are probed)")
	fs.Parse(args)
	for i := 0; i < *startups; i++ {
		atomic.AddUint64(&sink, startup(uint64(i)))
	}
	if *startOnly {
		return
	}
	var served int64
	l := listen(*addr, *reuse)
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := atomic.AddInt64(&served, 1)
		if *dieAfter > 0 && n > *dieAfter {
			fmt.Fprintf(os.Stderr, "servicetarget: simulated crash after %d requests\n", *dieAfter)
			os.Exit(9)
		}
		atomic.AddUint64(&sink, handle(uint64(n)))
		if os.Getenv("SERVICETARGET_NEVER") == "yes" {
			atomic.AddUint64(&sink, neverCalled(uint64(n)))
		}
		fmt.Fprintln(w, "ok")
	}))
}

func foreign(args []string) {
	fs := flag.NewFlagSet("foreign", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "")
	reuse := fs.Bool("reuseport", false, "")
	lifetime := fs.Duration("lifetime", 60*time.Second, "exit after this long")
	fs.Parse(args)
	l := listen(*addr, *reuse)
	fmt.Println("listening", l.Addr())
	time.AfterFunc(*lifetime, func() { os.Exit(0) })
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "foreign") }))
}

func load(args []string) {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	addr := fs.String("addr", "", "")
	n := fs.Int("n", 100, "requests")
	fail := fs.Bool("fail", false, "exit 4 at once, as a broken load driver does")
	fs.Parse(args)
	if *fail {
		fmt.Fprintln(os.Stderr, "servicetarget load: simulated load failure")
		os.Exit(4)
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := 0; i < *n; i++ {
		resp, err := client.Get("http://" + *addr + "/")
		if err != nil {
			fmt.Fprintf(os.Stderr, "servicetarget load: request %d: %v\n", i+1, err)
			os.Exit(4)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: servicetarget serve|load|foreign|idle ...")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2:])
	case "load":
		load(os.Args[2:])
	case "foreign":
		foreign(os.Args[2:])
	case "idle":
		time.Sleep(50 * time.Millisecond)
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}
