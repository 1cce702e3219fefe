// Command probetarget is the Go program the gate's probe tests trace: functions with known
// timing, call counts and control flow (recursion with stack growth, goroutine migration, panics,
// Goexit, nesting, no stack check, large frames, no RET), to check the eBPF timing engine
// against the truth.
//
//	probetarget MODE [flags]
//
// Every mode but fail ends by printing one line
//
//	GATE_CALLS {"main.bigFrame":0,...,"main.spinFor":200,...}
//
// to stdout: the exact number of calls of every target function (all targets, zeros included),
// and exits 0. See ../README.md for the modes and the prologues of the targets.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ---- call counters --------------------------------------------------------------------------

type counter struct {
	name string
	n    atomic.Int64
}

var (
	cSpinFor         = &counter{name: "main.spinFor"}
	cRecurse         = &counter{name: "main.recurse"}
	cYielder         = &counter{name: "main.yielder"}
	cMayPanic        = &counter{name: "main.mayPanic"}
	cCallWithRecover = &counter{name: "main.callWithRecover"}
	cExitsEarly      = &counter{name: "main.exitsEarly"}
	cOuter           = &counter{name: "main.outer"}
	cInner           = &counter{name: "main.inner"}
	cTiny            = &counter{name: "main.tiny"}
	cSmall           = &counter{name: "main.small"}
	cLeaf            = &counter{name: "main.leaf"}
	cBigFrame        = &counter{name: "main.bigFrame"}
	cNeverReturns    = &counter{name: "main.neverReturns"}
	cCrunch          = &counter{name: "main.crunch"}
	cNap             = &counter{name: "main.nap"}
)

var counters = []*counter{
	cSpinFor, cRecurse, cYielder, cMayPanic, cCallWithRecover, cExitsEarly, cOuter, cInner,
	cTiny, cLeaf, cBigFrame, cNeverReturns, cSmall, cCrunch, cNap,
}

func printCalls() {
	m := make(map[string]int64, len(counters))
	for _, c := range counters {
		m[c.name] = c.n.Load()
	}
	b, err := json.Marshal(m) // sorted keys
	if err != nil {
		panic(err)
	}
	fmt.Printf("GATE_CALLS %s\n", b)
}

// ---- target functions -------------------------------------------------------------------------

// spinFor busy-waits until d has elapsed (no sleeping) and returns the time it measured.
//
//go:noinline
func spinFor(d time.Duration) time.Duration {
	cSpinFor.n.Add(1)
	start := time.Now()
	for {
		if e := time.Since(start); e >= d {
			return e
		}
	}
}

// crunch does a fixed amount of CPU work (rounds of an integer hash): unlike spinFor, its wall
// time grows when its thread is preempted, its CPU time does not.
//
//go:noinline
func crunch(rounds int) uint64 {
	cCrunch.n.Add(1)
	x := uint64(rounds) | 1
	for i := 0; i < rounds; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// nap sleeps d in a raw nanosleep system call: the thread (and the goroutine with it) stays in
// the call, asleep, off the CPU but not preempted.
//
//go:noinline
func nap(d time.Duration) {
	cNap.n.Add(1)
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

// busy is the busy-wait of the other targets (not a target itself; it may be inlined).
func busy(d time.Duration) {
	start := time.Now()
	for time.Since(start) < d {
	}
}

// recurse recurses to 0 with a 256-byte array live across the recursive call in every frame, so
// the goroutine's stack grows (is copied) many times on the way down.
//
//go:noinline
func recurse(depth int) int {
	cRecurse.n.Add(1)
	var buf [256]byte
	for i := range buf {
		buf[i] = byte(depth + i)
	}
	if depth <= 0 {
		return int(buf[0])
	}
	r := recurse(depth - 1)
	return r + int(buf[(depth*7)&255])
}

// yielder gives up its thread several times (Gosched, a 50 us time.Sleep, a 50 us blocking
// nanosleep system call that makes the runtime hand its P to another thread, Gosched): it often
// resumes on another OS thread. It reports whether it ended on another thread than it started on.
//
//go:noinline
func yielder() (migrated bool) {
	cYielder.n.Add(1)
	tid := syscall.Gettid()
	for i := 0; i < 3; i++ {
		runtime.Gosched()
	}
	time.Sleep(50 * time.Microsecond)
	ts := syscall.Timespec{Nsec: 50_000}
	syscall.Nanosleep(&ts, nil)
	for i := 0; i < 3; i++ {
		runtime.Gosched()
	}
	return syscall.Gettid() != tid
}

var errPanic = errors.New("probetarget: planned panic")

// mayPanic busy-waits ~20 us, then panics when i%3 == 2 (every 3rd call), else returns.
//
//go:noinline
func mayPanic(i int) int {
	cMayPanic.n.Add(1)
	busy(20 * time.Microsecond)
	if i%3 == 2 {
		panic(errPanic)
	}
	return i
}

// callWithRecover calls mayPanic and recovers its panic (in the deferred closure
// main.callWithRecover.func1). It returns whether mayPanic panicked.
//
//go:noinline
func callWithRecover(i int) (panicked bool) {
	cCallWithRecover.n.Add(1)
	defer func() {
		if r := recover(); r != nil {
			if r != errPanic {
				panic(r)
			}
			panicked = true
		}
	}()
	mayPanic(i)
	return false
}

var goexits atomic.Int64

// exitsEarly busy-waits ~20 us; for even i it then calls runtime.Goexit (it never returns, its
// goroutine ends), for odd i it returns.
//
//go:noinline
func exitsEarly(i int) {
	cExitsEarly.n.Add(1)
	busy(20 * time.Microsecond)
	if i%2 == 0 {
		goexits.Add(1)
		runtime.Goexit()
	}
}

// outer busy-waits ~10 us and calls inner 3 times (~10 us each): ~40 us inclusive.
//
//go:noinline
func outer() {
	cOuter.n.Add(1)
	busy(10 * time.Microsecond)
	for i := 0; i < 3; i++ {
		inner()
	}
}

//go:noinline
func inner() {
	cInner.n.Add(1)
	busy(10 * time.Microsecond)
}

// tiny is a few ns of work (one atomic add and some arithmetic).
//
//go:noinline
func tiny(i int) int {
	cTiny.n.Add(1)
	return i*2654435761 ^ i>>7
}

// small is as cheap as tiny but not a leaf (it calls smallHelper), so the compiler gives it the
// stack-check prologue: the benchmark times its entry probe on the jbe against one on its first
// instruction (the cmp), with the same body.
//
//go:noinline
func small(i int) int {
	cSmall.n.Add(1)
	return smallHelper(i) + 1
}

//go:noinline
func smallHelper(i int) int { return i*2654435761 ^ i>>7 }

// leaf is a small leaf function without the stack-bound check in its prologue: no calls, no
// frame, so the compiler makes it NOSPLIT (also said explicitly). Its first instruction is
// part of the body (see README for the disassembly).
//
//go:noinline
//go:nosplit
func leaf(x int) int {
	cLeaf.n.Add(1)
	return x*3 + 1
}

// bigFrame has a 9000-byte local array (> 8 KiB, above the 4 KiB StackBig), so its prologue
// uses the large-frame stack check: SP minus (framesize - StackSmall) goes into the scratch
// register R12, with a wraparound check (JB) before the compare against the stack guard
// 0x10(R14). `go tool objdump -s 'main.bigFrame$'` (same bytes in every version; the frame
// pointer setup differs):
//
//	Go 1.19: MOVQ SP, R12            4989e4
//	         SUBQ $0x22b0, R12       4981ecb0220000
//	         JB morestack            0f82xxxxxxxx
//	         CMPQ 0x10(R14), R12     4d3b6610       (1.19's objdump prints the operands swapped)
//	         JBE morestack           0f86xxxxxxxx
//	         SUBQ $0x2330, SP; MOVQ BP, 0x2328(SP); LEAQ 0x2328(SP), BP
//	Go 1.23: MOVQ SP, R12; SUBQ $0x22b0, R12; JB morestack; CMPQ R12, 0x10(R14); JBE morestack
//	         (JBE as the short 76xx form), then PUSHQ BP; MOVQ SP, BP; SUBQ $0x2328, SP
//
// The morestack path at the end spills the argument: MOVQ AX, 0x8(SP); CALL
// runtime.morestack_noctxt.abi0; MOVQ 0x8(SP), AX; JMP main.bigFrame.
//
//go:noinline
func bigFrame(seed int) int {
	cBigFrame.n.Add(1)
	var buf [9000]byte
	for i := range buf {
		buf[i] = byte(i*seed + i>>8)
	}
	s := 0
	for i := len(buf) - 1; i >= 0; i -= 3 {
		s += int(buf[i])
	}
	return s
}

var errNever = errors.New("probetarget: neverReturns always panics")

// neverReturns always panics: its machine code has no RET (it ends with the call of
// runtime.gopanic and the morestack trampoline).
//
//go:noinline
func neverReturns() {
	cNeverReturns.n.Add(1)
	panic(errNever)
}

// ---- modes ------------------------------------------------------------------------------------

var sink atomic.Int64

func modeSpin(args []string) {
	fs := flag.NewFlagSet("spin", flag.ExitOnError)
	n := fs.Int("n", 200, "calls")
	us := fs.Int("us", 500, "busy-wait per call, microseconds")
	fs.Parse(args)
	d := time.Duration(*us) * time.Microsecond
	var sum, min, max int64
	for i := 0; i < *n; i++ {
		e := int64(spinFor(d))
		sum += e
		if i == 0 || e < min {
			min = e
		}
		if e > max {
			max = e
		}
	}
	mean := int64(0)
	if *n > 0 {
		mean = sum / int64(*n)
	}
	fmt.Printf("GATE_SPIN_NS {\"mean\":%d,\"min\":%d,\"max\":%d}\n", mean, min, max)
}

// modeMoments makes calls at known moments of the run: -burst calls of crunch right at start-up
// (a burst, as start-up work is), then -n calls of spinFor spread evenly over the rest of the run
// (what gate keeps as each function's calls' moments in the run).
func modeMoments(args []string) {
	fs := flag.NewFlagSet("moments", flag.ExitOnError)
	burst := fs.Int("burst", 500, "crunch calls at start-up")
	n := fs.Int("n", 200, "spinFor calls after them")
	us := fs.Int("us", 1000, "busy-wait per spinFor call, microseconds")
	fs.Parse(args)
	var x uint64
	for i := 0; i < *burst; i++ {
		x ^= crunch(100)
	}
	for i := 0; i < *n; i++ {
		spinFor(time.Duration(*us) * time.Microsecond)
	}
	fmt.Printf("GATE_MOMENTS %d\n", x&1)
}

// modePreempt alternates crunch and nap on one goroutine (exclude_preemption's test). With -spin N,
// N more goroutines spin, each on a thread of its own, for as long as they run: on a machine (or
// CPU mask) with one CPU, the program preempts itself. It prints the involuntary context switches of
// the calls' thread (GATE_NIVCSW), so a test can tell that it was preempted.
func modePreempt(args []string) {
	fs := flag.NewFlagSet("preempt", flag.ExitOnError)
	n := fs.Int("n", 40, "calls of each")
	rounds := fs.Int("rounds", 2000000, "crunch: hash rounds per call")
	ms := fs.Int("ms", 5, "nap: milliseconds per call")
	spin := fs.Int("spin", 0, "goroutines spinning meanwhile, each on a thread of its own (GOMAXPROCS > spin)")
	fs.Parse(args)
	runtime.LockOSThread() // the calls stay on this thread: its rusage is theirs
	var stop atomic.Bool
	var spun sync.WaitGroup
	for i := 0; i < *spin; i++ {
		spun.Add(1)
		go func() {
			runtime.LockOSThread()
			for !stop.Load() {
			}
			spun.Done()
		}()
	}
	for i := 0; i < *n; i++ {
		sink.Add(int64(crunch(*rounds) & 1))
		nap(time.Duration(*ms) * time.Millisecond)
	}
	stop.Store(true)
	spun.Wait()
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	fmt.Printf("GATE_NIVCSW %d\n", ru.Nivcsw)
}

func modeRecurse(args []string) {
	fs := flag.NewFlagSet("recurse", flag.ExitOnError)
	depth := fs.Int("depth", 3000, "recursion depth")
	goroutines := fs.Int("goroutines", 40, "fresh goroutines, each recursing once")
	fs.Parse(args)
	// No GC: it would shrink stacks, and (Go >= 1.19) its stack statistics would make new
	// goroutines start with bigger stacks; each goroutine must start small and grow.
	debug.SetGCPercent(-1)
	var wg sync.WaitGroup
	for g := 0; g < *goroutines; g++ {
		wg.Add(1)
		go func() {
			sink.Add(int64(recurse(*depth)))
			wg.Done()
		}()
	}
	wg.Wait()
}

func modeYield(args []string) {
	fs := flag.NewFlagSet("yield", flag.ExitOnError)
	n := fs.Int("n", 200, "calls")
	procs := fs.Int("procs", 4, "GOMAXPROCS")
	fs.Parse(args)
	runtime.GOMAXPROCS(*procs)
	var stop atomic.Bool
	var busyWG sync.WaitGroup
	for b := 0; b < *procs; b++ { // keep the other Ps busy, so resumed goroutines move around
		busyWG.Add(1)
		go func() {
			for !stop.Load() {
				busy(20 * time.Microsecond)
				runtime.Gosched()
			}
			busyWG.Done()
		}()
	}
	workers := 2 * *procs
	var migrated atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		w := w
		wg.Add(1)
		go func() {
			for i := w; i < *n; i += workers {
				if yielder() {
					migrated.Add(1)
				}
			}
			wg.Done()
		}()
	}
	wg.Wait()
	stop.Store(true)
	busyWG.Wait()
	fmt.Printf("GATE_MIGRATED %d\n", migrated.Load()) // calls that ended on another thread
}

func modePanic(args []string) {
	fs := flag.NewFlagSet("panic", flag.ExitOnError)
	n := fs.Int("n", 100, "calls")
	fs.Parse(args)
	panics := 0
	for i := 0; i < *n; i++ {
		if callWithRecover(i) {
			panics++
		}
	}
	fmt.Printf("GATE_PANICS %d\n", panics)
}

func modeGoexit(args []string) {
	fs := flag.NewFlagSet("goexit", flag.ExitOnError)
	n := fs.Int("n", 50, "goroutines")
	fs.Parse(args)
	var wg sync.WaitGroup
	for i := 0; i < *n; i++ {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done() // runs on Goexit too
			exitsEarly(i)
		}()
	}
	wg.Wait()
	fmt.Printf("GATE_GOEXITS %d\n", goexits.Load())
}

func modeNested(args []string) {
	fs := flag.NewFlagSet("nested", flag.ExitOnError)
	n := fs.Int("n", 500, "calls of outer")
	fs.Parse(args)
	for i := 0; i < *n; i++ {
		outer()
	}
}

func modeFast(args []string) {
	fs := flag.NewFlagSet("fast", flag.ExitOnError)
	n := fs.Int("n", 200000, "calls")
	fn := fs.String("fn", "tiny", "function to call in the loop: tiny (nosplit leaf) or small (with stack check)")
	fs.Parse(args)
	f := tiny
	if *fn == "small" {
		f = small
	}
	s := 0
	start := time.Now()
	for i := 0; i < *n; i++ {
		s += f(i)
	}
	loop := time.Since(start)
	sink.Add(int64(s))
	fmt.Printf("GATE_LOOP_NS %d\n", loop.Nanoseconds())
}

func modeNostack(args []string) {
	fs := flag.NewFlagSet("nostack", flag.ExitOnError)
	n := fs.Int("n", 1000, "calls")
	fs.Parse(args)
	s := 0
	for i := 0; i < *n; i++ {
		s += leaf(i)
	}
	sink.Add(int64(s))
}

func modeBigframe(args []string) {
	fs := flag.NewFlagSet("bigframe", flag.ExitOnError)
	n := fs.Int("n", 200, "calls")
	fs.Parse(args)
	s := 0
	for i := 0; i < *n; i++ {
		s += bigFrame(i)
	}
	sink.Add(int64(s))
}

func modeNotret(args []string) {
	fs := flag.NewFlagSet("notret", flag.ExitOnError)
	n := fs.Int("n", 10, "calls")
	fs.Parse(args)
	for i := 0; i < *n; i++ {
		func() {
			defer func() {
				if r := recover(); r != errNever {
					panic(r)
				}
			}()
			neverReturns()
		}()
	}
}

func modeWait(args []string) {
	fs := flag.NewFlagSet("wait", flag.ExitOnError)
	ms := fs.Int("ms", 2000, "how long to run, milliseconds")
	stdin := fs.Bool("stdin", false, "also stop when stdin has a line or reaches EOF")
	fs.Parse(args)
	var stop atomic.Bool
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sigs
		stop.Store(true)
	}()
	if *stdin {
		go func() {
			bufio.NewReader(os.Stdin).ReadString('\n')
			stop.Store(true)
		}()
	}
	fmt.Printf("GATE_READY %d\n", os.Getpid())
	deadline := time.Now().Add(time.Duration(*ms) * time.Millisecond)
	for !stop.Load() && time.Now().Before(deadline) {
		spinFor(100 * time.Microsecond)
	}
}

func modeFail(args []string) {
	fs := flag.NewFlagSet("fail", flag.ExitOnError)
	code := fs.Int("code", 7, "exit status")
	fs.Parse(args)
	fmt.Fprintln(os.Stderr, "probetarget: simulated failure: the workload broke on purpose")
	fmt.Fprintf(os.Stderr, "probetarget: simulated failure: exiting with status %d\n", *code)
	fmt.Fprintln(os.Stderr, "probetarget: simulated failure: (this is the last line)")
	os.Exit(*code)
}

var modes = map[string]func([]string){
	"spin":     modeSpin,
	"recurse":  modeRecurse,
	"yield":    modeYield,
	"panic":    modePanic,
	"goexit":   modeGoexit,
	"nested":   modeNested,
	"fast":     modeFast,
	"nostack":  modeNostack,
	"bigframe": modeBigframe,
	"notret":   modeNotret,
	"wait":     modeWait,
	"preempt":  modePreempt,
	"moments":  modeMoments,
	"fail":     modeFail,
}

func main() {
	if len(os.Args) < 2 || modes[os.Args[1]] == nil {
		names := make([]string, 0, len(modes))
		for m := range modes {
			names = append(names, m)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: probetarget MODE [flags]; MODE is one of: %s\n", strings.Join(names, " "))
		os.Exit(2)
	}
	modes[os.Args[1]](os.Args[2:])
	printCalls()
}
