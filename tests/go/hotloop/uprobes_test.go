package main

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkUprobes calls hot like BenchmarkHot, then reports whether this process has hit a uprobe
// that was single-stepped: the kernel maps its out-of-line area, "[uprobes]", into a process at
// the first such hit (a probe on a Go function's ret is always single-stepped on x86-64). Metric
// "uprobes": 1 or 0. gate's e2e tests (tests/e2e/gobench_e2e_test.cpp) read it to tell an execution
// gate probed from a clean one; not meant for gating.
func BenchmarkUprobes(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += hot(uint64(i))
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		b.Fatal(err)
	}
	v := 0.0
	if bytes.Contains(maps, []byte("[uprobes]")) {
		v = 1
	}
	b.ReportMetric(v, "uprobes")
}
