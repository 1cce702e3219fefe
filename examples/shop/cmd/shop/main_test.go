package main

// Checks, with the toolchain running the test, that the GATE_CALLS names are the real symbol
// names of the binaries, that the functions lists of gate.yaml and gate-service.yaml (with the
// gate's glob syntax) name exactly the counted functions, that the counts are deterministic and
// that SHOP_SLOW is parsed as documented.
//
//	cd examples/shop && go test ./cmd/shop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func goTool(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func build(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	goTool(t, "../..", "build", "-o", bin, pkg)
	return bin
}

// textSymbols returns the function symbols of a binary (go tool nm type T/t).
func textSymbols(t *testing.T, bin string) map[string]bool {
	t.Helper()
	syms := map[string]bool{}
	for _, line := range strings.Split(goTool(t, ".", "tool", "nm", bin), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && (f[1] == "T" || f[1] == "t") {
			syms[strings.Join(f[2:], " ")] = true
		}
	}
	return syms
}

func parseCalls(t *testing.T, stdout string) map[string]int64 {
	t.Helper()
	var line string
	n := 0
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "GATE_CALLS ") {
			line, n = l, n+1
		}
	}
	if n != 1 {
		t.Fatalf("want exactly one GATE_CALLS line, got %d in:\n%s", n, stdout)
	}
	calls := map[string]int64{}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "GATE_CALLS ")), &calls); err != nil {
		t.Fatalf("GATE_CALLS: %v", err)
	}
	return calls
}

func run(t *testing.T, env []string, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// globMatch implements the gate's name patterns (gate/analysis/functions.hpp): * any run
// without '/', ** any run, ? one character but '/', the 5 characters [...] one balanced
// bracket group, \x a literal x, anything else literal.
func globMatch(pat, name string) bool {
	switch {
	case pat == "":
		return name == ""
	case strings.HasPrefix(pat, "**"):
		for i := 0; i <= len(name); i++ {
			if globMatch(pat[2:], name[i:]) {
				return true
			}
		}
		return false
	case pat[0] == '*':
		for i := 0; i <= len(name); i++ {
			if globMatch(pat[1:], name[i:]) {
				return true
			}
			if i < len(name) && name[i] == '/' {
				return false
			}
		}
		return false
	case pat[0] == '?':
		return name != "" && name[0] != '/' && globMatch(pat[1:], name[1:])
	case strings.HasPrefix(pat, "[...]"):
		if name == "" || name[0] != '[' {
			return false
		}
		depth := 0
		for i := 0; i < len(name); i++ {
			switch name[i] {
			case '[':
				depth++
			case ']':
				depth--
				if depth == 0 {
					return globMatch(pat[5:], name[i+1:])
				}
			}
		}
		return false
	case pat[0] == '\\' && len(pat) > 1:
		return name != "" && name[0] == pat[1] && globMatch(pat[2:], name[1:])
	default:
		return name != "" && name[0] == pat[0] && globMatch(pat[1:], name[1:])
	}
}

// configFunctions reads the `functions:` block list of a gate config.
func configFunctions(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pats []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "functions:") {
			in = true
			continue
		}
		if in {
			s := strings.TrimSpace(line)
			if s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			if !strings.HasPrefix(s, "- ") {
				break
			}
			s = strings.TrimSpace(strings.TrimPrefix(s, "- "))
			if i := strings.Index(s, " #"); i >= 0 {
				s = strings.TrimSpace(s[:i])
			}
			pats = append(pats, strings.Trim(s, `"'`))
		}
	}
	if len(pats) == 0 {
		t.Fatalf("%s: no functions", path)
	}
	return pats
}

func checkConfig(t *testing.T, config string, syms map[string]bool, calls map[string]int64) {
	t.Helper()
	named := map[string]bool{}
	for _, pat := range configFunctions(t, config) {
		n := 0
		for s := range syms {
			if globMatch(pat, s) {
				n++
				named[s] = true
				if _, ok := calls[s]; !ok {
					t.Errorf("%s: pattern %q matches %s, which is not counted", config, pat, s)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: pattern %q matches no function", config, pat)
		}
	}
	for name := range calls {
		if !named[name] {
			t.Errorf("%s: counted function %s is not in the functions list", config, name)
		}
	}
}

func TestShopCallsAndConfig(t *testing.T) {
	bin := build(t, "./cmd/shop")
	syms := textSymbols(t, bin)
	// -workers fixed: its default follows GOMAXPROCS, and CheckoutBatch.func1 runs once per worker.
	out, errOut, code := run(t, []string{"GOMAXPROCS=3"}, bin, "-orders", "300", "-workers", "2", "-q")
	if code != 0 {
		t.Fatalf("shop: exit %d\n%s", code, errOut)
	}
	calls := parseCalls(t, out)
	for name, n := range calls {
		if !syms[name] {
			t.Errorf("GATE_CALLS names %s, which is not a function symbol of the binary", name)
		}
		if n == 0 {
			t.Errorf("%s was never called", name)
		}
	}
	checkConfig(t, "../../gate.yaml", syms, calls)

	out2, _, _ := run(t, []string{"GOMAXPROCS=1"}, bin, "-orders", "300", "-workers", "2", "-q")
	if again := parseCalls(t, out2); !reflect.DeepEqual(calls, again) {
		t.Errorf("calls differ between runs:\n%v\n%v", calls, again)
	}
}

func TestShopSlow(t *testing.T) {
	bin := build(t, "./cmd/shop")
	_, errOut, code := run(t, []string{"SHOP_SLOW=shop.(*Cart).Nope=2"}, bin, "-orders", "10", "-q")
	if code != 2 || !strings.Contains(errOut, "example.com/shop.(*Cart).Checkout") {
		t.Errorf("unknown SHOP_SLOW name: exit %d, want 2 and the valid names; stderr:\n%s", code, errOut)
	}
	_, errOut, code = run(t, []string{"SHOP_SLOW=shop.(*Cart).Checkout=0.5"}, bin, "-orders", "10", "-q")
	if code != 2 {
		t.Errorf("factor < 1: exit %d, want 2; stderr:\n%s", code, errOut)
	}
	for _, spec := range []string{
		"example.com/shop.(*Cart).Checkout=1.5",
		"shop.(*Cart).Checkout=1.5, pricing.NewRules.func2=2",
		"shop.SumBy[...]=2,shop.(*Category).Walk=1.2",
	} {
		out, errOut, code := run(t, []string{"SHOP_SLOW=" + spec}, bin, "-orders", "100", "-q")
		if code != 0 {
			t.Errorf("SHOP_SLOW=%s: exit %d\n%s", spec, code, errOut)
			continue
		}
		parseCalls(t, out)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestService(t *testing.T) {
	shopd, shopload := build(t, "./cmd/shopd"), build(t, "./cmd/shopload")
	syms := textSymbols(t, shopd)
	var first map[string]int64
	for i := 0; i < 2; i++ {
		addr := freeAddr(t)
		srv := exec.Command(shopd, "-addr", addr)
		var o, e bytes.Buffer
		srv.Stdout, srv.Stderr = &o, &e
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		_, loadErr, code := run(t, nil, shopload, "-addr", addr, "-requests", "400")
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("shopd: %v\n%s", err, e.String())
			}
		case <-time.After(30 * time.Second):
			srv.Process.Kill()
			t.Fatal("shopd did not stop on SIGTERM")
		}
		if code != 0 {
			t.Fatalf("shopload: exit %d\n%s\nshopd:\n%s", code, loadErr, e.String())
		}
		calls := parseCalls(t, o.String())
		if first == nil {
			first = calls
			for name, n := range calls {
				if !syms[name] {
					t.Errorf("GATE_CALLS names %s, which is not a function symbol of shopd", name)
				}
				if n == 0 {
					t.Errorf("shopd: %s was never called", name)
				}
			}
			checkConfig(t, "../../gate-service.yaml", syms, calls)
		} else if !reflect.DeepEqual(first, calls) {
			t.Errorf("shopd calls differ between runs:\n%v\n%v", first, calls)
		}
	}
	if err := exec.Command(shopload, "-addr", "10.1.2.3:80", "-requests", "1").Run(); err == nil {
		t.Error("shopload accepted a non-loopback address")
	}
	if err := exec.Command(shopd, "-addr", "0.0.0.0:0").Run(); err == nil {
		t.Error("shopd accepted a non-loopback address")
	}
}
