// asmcpu: functions whose CPU time is spent in the standard library's assembly (issue 54 item 8),
// each with an unprobed twin that this program times by its own thread's CPU clock.
//
// Declared functions (each //go:noinline, calling one work function that its twin calls too):
//
//	main.Encode    crypto/sha256 of the payload (Go 1.19's AVX2 block uses BP as a table pointer)
//	main.Sum512    crypto/sha512 (Go 1.19's blockAVX2 clobbers BP too)
//	main.Checksum  hash/crc32 Castagnoli (frameless SSE4.2 leaves: castagnoliSSE42Triple)
//	main.Seal      crypto/aes GCM seal (frameless gcmAesEnc)
//	main.Search    bytes.IndexByte / bytes.Count over the payload (frameless internal/bytealg)
//	main.Mul       math/big: the payload as a number times a 4-word one (addMulVVW, frameless)
//
// Payloads of 512 B to 32 KiB (-sizes), as in issue 54's held-back workload. Each round calls every
// chosen function (-funcs) -per times on each payload size, then its twin as many times on the same
// payloads, timed by CLOCK_THREAD_CPUTIME_ID around the batch: the twin's batches meet the same
// machine as the declared function's (this VM's speed swings ~1.4x on a 0.1-1 s timescale), so its
// CPU time per call is the declared function's own, measured without samples and without probes.
//
// The head of a slowdown: -slow-large F (or go build -ldflags "-X main.slowLarge=F") makes the
// calls on payloads of 16 KiB and more do F times the work (the payload and then its first
// (F-1) part again); the twin does the same, so the true ratio is what the twin's clock reads.
//
// -self-out PATH appends one JSON line per execution:
//
//	{"main.Encode":{"calls":N,"cpu_ns":T,"large_calls":n,"large_cpu_ns":t}, ...}
//
// where calls and cpu_ns are the twin's (the same calls as the declared function's), large_* the
// part on payloads of 16 KiB and more.
package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// slowLarge: the default of -slow-large, settable at link time for a head binary.
var slowLarge = "1"

const largeFrom = 16 << 10

var factor = 1.0

// extra: how many bytes of a payload of n bytes the slowed part does again.
func extra(n int) int {
	if n < largeFrom || factor <= 1 {
		return 0
	}
	e := int(float64(n)*(factor-1) + 0.5)
	if e > n {
		e = n
	}
	return e
}

var sink uint64

// ---- the work, shared by each declared function and its twin ----

//go:noinline
func encodeWork(b []byte) uint64 {
	s := sha256.Sum256(b)
	if e := extra(len(b)); e > 0 {
		t := sha256.Sum256(b[:e])
		s[0] ^= t[0]
	}
	return uint64(s[0])
}

//go:noinline
func sum512Work(b []byte) uint64 {
	s := sha512.Sum512(b)
	if e := extra(len(b)); e > 0 {
		t := sha512.Sum512(b[:e])
		s[0] ^= t[0]
	}
	return uint64(s[0])
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

//go:noinline
func checksumWork(b []byte) uint64 {
	c := crc32.Checksum(b, castagnoli)
	if e := extra(len(b)); e > 0 {
		c ^= crc32.Checksum(b[:e], castagnoli)
	}
	return uint64(c)
}

var (
	gcm   cipher.AEAD
	nonce = make([]byte, 12)
	out   = make([]byte, 0, 64<<10+64)
)

//go:noinline
func sealWork(b []byte) uint64 {
	o := gcm.Seal(out[:0], nonce, b, nil)
	if e := extra(len(b)); e > 0 {
		o = gcm.Seal(out[:0], nonce, b[:e], nil)
	}
	return uint64(o[0])
}

//go:noinline
func searchWork(b []byte) uint64 {
	n := bytes.IndexByte(b, 0xff) + bytes.Count(b, []byte{0xfe})
	if e := extra(len(b)); e > 0 {
		n += bytes.IndexByte(b[:e], 0xff) + bytes.Count(b[:e], []byte{0xfe})
	}
	return uint64(n)
}

var (
	mulBy = new(big.Int).Lsh(big.NewInt(0x7654321), 200) // 4 words
	mulX  = new(big.Int)
	mulZ  = new(big.Int)
)

//go:noinline
func mulWork(b []byte) uint64 {
	mulX.SetBytes(b)
	mulZ.Mul(mulX, mulBy)
	if e := extra(len(b)); e > 0 {
		mulX.SetBytes(b[:e])
		mulZ.Mul(mulX, mulBy)
	}
	return uint64(mulZ.Bits()[0])
}

// ---- the declared functions ----

//go:noinline
func Encode(b []byte) uint64 { return encodeWork(b) }

//go:noinline
func Sum512(b []byte) uint64 { return sum512Work(b) }

//go:noinline
func Checksum(b []byte) uint64 { return checksumWork(b) }

//go:noinline
func Seal(b []byte) uint64 { return sealWork(b) }

//go:noinline
func Search(b []byte) uint64 { return searchWork(b) }

//go:noinline
func Mul(b []byte) uint64 { return mulWork(b) }

// ---- their twins: the same work, never declared ----

//go:noinline
func encodeTwin(b []byte) uint64 { return encodeWork(b) }

//go:noinline
func sum512Twin(b []byte) uint64 { return sum512Work(b) }

//go:noinline
func checksumTwin(b []byte) uint64 { return checksumWork(b) }

//go:noinline
func sealTwin(b []byte) uint64 { return sealWork(b) }

//go:noinline
func searchTwin(b []byte) uint64 { return searchWork(b) }

//go:noinline
func mulTwin(b []byte) uint64 { return mulWork(b) }

type fn struct {
	name          string
	declared, twin func([]byte) uint64
}

var all = []fn{
	{"main.Encode", Encode, encodeTwin},
	{"main.Sum512", Sum512, sum512Twin},
	{"main.Checksum", Checksum, checksumTwin},
	{"main.Seal", Seal, sealTwin},
	{"main.Search", Search, searchTwin},
	{"main.Mul", Mul, mulTwin},
}

// threadCPU: this thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID): the time other processes
// hold the CPU is not in it; interrupts taken while it runs are (no IRQ time accounting here).
func threadCPU() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(e)
	}
	return ts.Nano()
}

type self struct {
	Calls      int64 `json:"calls"`
	CPUNs      int64 `json:"cpu_ns"`
	LargeCalls int64 `json:"large_calls"`
	LargeCPUNs int64 `json:"large_cpu_ns"`
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "asmcpu: "+format+"\n", a...)
	os.Exit(2)
}

func main() {
	rounds := flag.Int("rounds", 4, "rounds per execution")
	per := flag.Int("per", 16, "calls of each function on each payload size per round (and as many of its twin)")
	sizes := flag.String("sizes", "512,1024,2048,4096,8192,16384,32768", "payload sizes in bytes")
	funcs := flag.String("funcs", "Encode", "declared functions to call: names without main., comma-separated, or all")
	slow := flag.String("slow-large", slowLarge, "work factor of calls on payloads of 16 KiB and more")
	selfOut := flag.String("self-out", "", "append the twins' CPU time per execution to this file (one JSON line)")
	flag.Parse()
	var err error
	if factor, err = strconv.ParseFloat(*slow, 64); err != nil || factor < 1 || factor > 2 {
		fail("-slow-large %q: want a factor between 1 and 2", *slow)
	}
	var payloads [][]byte
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 || n > 64<<10 {
			fail("-sizes: %q is not a size from 1 to 65536 bytes", s)
		}
		p := make([]byte, n)
		x := uint32(n) | 1
		for i := range p {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			p[i] = byte(x % 0xfd) // no 0xfe or 0xff: Search scans the whole payload
		}
		payloads = append(payloads, p)
	}
	var chosen []fn
	for _, f := range all {
		if *funcs == "all" || strings.Contains(","+*funcs+",", ","+strings.TrimPrefix(f.name, "main.")+",") {
			chosen = append(chosen, f)
		}
	}
	if len(chosen) == 0 {
		fail("-funcs %q names none of Encode, Sum512, Checksum, Seal, Search, Mul", *funcs)
	}
	block, err := aes.NewCipher(make([]byte, 16))
	if err != nil {
		fail("aes: %v", err)
	}
	if gcm, err = cipher.NewGCM(block); err != nil {
		fail("gcm: %v", err)
	}
	runtime.LockOSThread() // threadCPU reads this thread's clock
	selves := map[string]*self{}
	for _, f := range chosen {
		selves[f.name] = &self{}
	}
	for r := 0; r < *rounds; r++ {
		for _, f := range chosen {
			s := selves[f.name]
			for _, p := range payloads {
				for i := 0; i < *per; i++ {
					sink += f.declared(p)
				}
				t := threadCPU()
				for i := 0; i < *per; i++ {
					sink += f.twin(p)
				}
				d := threadCPU() - t
				s.Calls += int64(*per)
				s.CPUNs += d
				if len(p) >= largeFrom {
					s.LargeCalls += int64(*per)
					s.LargeCPUNs += d
				}
			}
		}
	}
	if *selfOut != "" {
		line, _ := json.Marshal(selves)
		f, err := os.OpenFile(*selfOut, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fail("-self-out: %v", err)
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			fail("-self-out: %v", err)
		}
		f.Close()
	}
	if sink == 42 {
		fmt.Println("unlikely")
	}
}
