package main

// Self-check with the toolchain running the test: every mode's counts, and the machine-code
// properties the C++ tests rely on (leaf without stack check, bigFrame with the large-frame
// check, neverReturns without RET).
//
//	cd tests/go/probetarget && go test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "probetarget")
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func lineValue(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix+" ") {
			return strings.TrimPrefix(l, prefix+" ")
		}
	}
	t.Fatalf("no %s line in:\n%s", prefix, out)
	return ""
}

func TestModes(t *testing.T) {
	bin := build(t)
	cases := []struct {
		args  []string
		calls map[string]int64
		lines map[string]string
	}{
		{[]string{"spin", "-n", "20", "-us", "200"}, map[string]int64{"main.spinFor": 20}, nil},
		{[]string{"recurse", "-depth", "3000", "-goroutines", "40"}, map[string]int64{"main.recurse": 40 * 3001}, nil},
		{[]string{"yield", "-n", "200", "-procs", "4"}, map[string]int64{"main.yielder": 200}, nil},
		{[]string{"panic", "-n", "100"}, map[string]int64{"main.mayPanic": 100, "main.callWithRecover": 100}, map[string]string{"GATE_PANICS": "33"}},
		{[]string{"goexit", "-n", "50"}, map[string]int64{"main.exitsEarly": 50}, map[string]string{"GATE_GOEXITS": "25"}},
		{[]string{"nested", "-n", "500"}, map[string]int64{"main.outer": 500, "main.inner": 1500}, nil},
		{[]string{"fast", "-n", "200000"}, map[string]int64{"main.tiny": 200000}, nil},
		{[]string{"nostack", "-n", "1000"}, map[string]int64{"main.leaf": 1000}, nil},
		{[]string{"bigframe", "-n", "200"}, map[string]int64{"main.bigFrame": 200}, nil},
		{[]string{"notret", "-n", "10"}, map[string]int64{"main.neverReturns": 10}, nil},
		{[]string{"preempt", "-n", "3", "-rounds", "1000", "-ms", "1"}, map[string]int64{"main.crunch": 3, "main.nap": 3}, nil},
		{[]string{"preempt", "-n", "3", "-rounds", "1000", "-ms", "1", "-spin", "1"}, map[string]int64{"main.crunch": 3, "main.nap": 3}, nil},
	}
	for _, c := range cases {
		out, err := exec.Command(bin, c.args...).Output()
		if err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		var calls map[string]int64
		if err := json.Unmarshal([]byte(lineValue(t, string(out), "GATE_CALLS")), &calls); err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{}
		for _, k := range counters {
			want[k.name] = 0
		}
		for k, v := range c.calls {
			want[k] = v
		}
		if !reflect.DeepEqual(calls, want) {
			t.Errorf("%v: calls %v, want %v", c.args, calls, want)
		}
		for k, v := range c.lines {
			if got := lineValue(t, string(out), k); got != v {
				t.Errorf("%v: %s %s, want %s", c.args, k, got, v)
			}
		}
	}

	cmd := exec.Command(bin, "fail", "-code", "7")
	errOut, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 || !strings.Contains(string(errOut), "probetarget: simulated failure") {
		t.Errorf("fail -code 7: %v\n%s", err, errOut)
	}
}

func objdump(t *testing.T, bin, fn string) []string {
	t.Helper()
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "tool", "objdump", "-s", "^main."+fn+"$", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("objdump %s: %v\n%s", fn, err, out)
	}
	var insns []string
	for _, l := range strings.Split(string(out), "\n")[1:] {
		var f []string // file:line, address, bytes, instruction
		for _, x := range strings.Split(l, "\t") {
			if x = strings.TrimSpace(x); x != "" {
				f = append(f, x)
			}
		}
		if len(f) >= 4 {
			insns = append(insns, f[3])
		}
	}
	if len(insns) == 0 {
		t.Fatalf("objdump %s: no instructions\n%s", fn, out)
	}
	return insns
}

func TestMachineCode(t *testing.T) {
	bin := build(t)
	if first := objdump(t, bin, "leaf")[0]; strings.Contains(first, "0x10(R14)") {
		t.Errorf("main.leaf starts with a stack check: %s", first)
	}
	if first := objdump(t, bin, "tiny")[0]; strings.Contains(first, "0x10(R14)") {
		t.Errorf("main.tiny starts with a stack check: %s", first)
	}
	if big := objdump(t, bin, "bigFrame"); !strings.HasPrefix(big[0], "MOVQ SP, R12") || !strings.HasPrefix(big[2], "JB ") {
		t.Errorf("main.bigFrame: want the large-frame prologue (MOVQ SP, R12; SUBQ; JB), got %v", big[:3])
	}
	if rec := objdump(t, bin, "recurse"); !strings.HasPrefix(rec[0], "LEAQ ") || !strings.Contains(rec[1], "0x10(R14)") {
		t.Errorf("main.recurse: want the medium-frame prologue (LEAQ -x(SP), R12; CMPQ), got %v", rec[:3])
	}
	for _, insn := range objdump(t, bin, "neverReturns") {
		if strings.HasPrefix(insn, "RET") {
			t.Errorf("main.neverReturns has a RET")
		}
	}
}
