package shop_test

// TestMain arms the example's knobs (SHOP_SLOW, SHOP_TIMING) in the test binary too, as cmd/shop's
// main does: gate-bench.yaml runs these benchmarks as gate's workload, and its tests slow a function.

import (
	"os"
	"testing"

	"example.com/shop/internal/instr"
)

func TestMain(m *testing.M) {
	instr.MustSetup("shop.test")
	os.Exit(m.Run())
}
