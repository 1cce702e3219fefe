// Benchmarks whose `go test -bench` output tests/gobench/benchfmt_go_test.cpp parses with every
// installed Go toolchain: -benchmem units, b.ReportMetric custom units, sub-benchmarks with '/'.
package benchpkg

import (
	"fmt"
	"testing"
)

var sink []byte

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = make([]byte, 64)
	}
}

// A custom metric of known value: the test checks it is read back exactly.
func BenchmarkCustom(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = sink[:0]
	}
	b.ReportMetric(42.5, "widgets/op")
	b.ReportMetric(7, "frobs")
}

func BenchmarkSub(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("size=%d/half", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = make([]byte, n)
			}
		})
	}
}

// Throughput: b.SetBytes makes Go print MB/s, a higher-is-better unit.
func BenchmarkThroughput(b *testing.B) {
	b.SetBytes(1024)
	buf := make([]byte, 1024)
	for i := 0; i < b.N; i++ {
		copy(buf, buf[1:])
	}
}
