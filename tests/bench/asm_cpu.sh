#!/usr/bin/env bash
# Issue 54 item 8: the sampled instrument on functions whose CPU time is in the standard library's
# assembly. For each Go toolchain given (default: every installed one), builds tests/go/asmcpu and
#  1. (when perf is installed) samples a bare run with the kernel's own frame-pointer walk
#     (`perf record -g`, what bpf_get_stack does): per leaf function, how many of its samples keep a
#     caller in main (the declared functions or their twins) on the stack;
#  2. runs `gate run` (measure: samples, 4999 Hz) with all six declared functions and prints, per
#     function, its cpu/call from samples against its own CPU time (the unprobed twin's thread CPU
#     clock around the same calls, batch by batch in the same execution), and the sampler's account.
# Usage (root): tests/bench/asm_cpu.sh [-g GATE] [-r ROUNDS] [GO_VERSION...]   e.g. 1.19 1.27
# Recorded: tests/bench/results/asm_cpu.txt (docs/profile.md cites it).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
gate=$here/build/gate/cli/gate
rounds=20
while getopts g:r: o; do
  case $o in
    g) gate=$OPTARG ;;
    r) rounds=$OPTARG ;;
    *) sed -n 2,12p "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ -x "$gate" ] || { echo "asm_cpu.sh: no gate binary at $gate (build it, or pass -g)" >&2; exit 2; }
go_of() {  # the go command of a version, where tests/support/go_build.cpp finds it
  for g in /usr/lib/go-"$1"/bin/go /opt/gate-go/"$1"/usr/lib/go-"$1"/bin/go; do [ -x "$g" ] && { echo "$g"; return; }; done
  return 1
}
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  for g in /usr/lib/go-1.*/bin/go /opt/gate-go/1.*/usr/lib/go-1.*/bin/go; do
    [ -x "$g" ] && versions+=("$(basename "$(dirname "$(dirname "$g")")" | sed 's/^go-//')")
  done
fi
work=$(mktemp -d /tmp/gate-asm-cpu.XXXXXX)
trap 'rm -rf "$work"' EXIT
funcs=main.Encode,main.Sum512,main.Checksum,main.Seal,main.Search,main.Mul
echo "\$ tests/bench/asm_cpu.sh $*"
echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, gate $(git -C "$here" rev-parse --short HEAD); $(uptime)"
for v in "${versions[@]}"; do
  go=$(go_of "$v") || { echo "go$v: not installed"; continue; }
  bin=$work/asmcpu-$v
  (cd "$here/tests/go/asmcpu" && "$go" build -o "$bin" .)
  echo
  echo "== go$v"
  if command -v perf > /dev/null; then
    perf record -q -F 4999 -g -o "$work/perf.data" "$bin" -funcs all -rounds "$rounds" 2> /dev/null
    echo "perf record -g (the kernel's frame-pointer walk), bare run: leaf function: samples, of which with a caller in main"
    perf script -i "$work/perf.data" -F ip,sym 2> /dev/null | awk 'BEGIN { RS = ""; FS = "\n" }
      { leaf = $1; gsub(/^[ \t]*[0-9a-f]+[ \t]+/, "", leaf); has = 0
        for (i = 2; i <= NF; i++) if ($i ~ / main\.[A-Za-z0-9]+$/ && $i !~ /main\.main$/) has = 1
        n[leaf]++; if (has) h[leaf]++ }
      END { for (k in n) if (n[k] >= 20) printf "  %-50s %6d %6d\n", k, n[k], h[k] }' | sort -k2 -rn | head -8
  else
    echo "perf record: skipped (perf is not installed: apt-get install linux-perf)"
  fi
  cat > "$work/gate.yaml" << EOF
binary: $bin
workload: \$GATE_BINARY -funcs all -rounds $rounds -self-out $work/self-$v.jsonl
runs: 3
env: {GOMAXPROCS: "2"}
functions: [${funcs//,/, }]
measure: samples
EOF
  rm -f "$work/self-$v.jsonl"
  "$gate" run -c "$work/gate.yaml" --no-build -o "$work/result-$v.json" 2> /dev/null | grep -E '^(main\.|function|sampler)'
  python3 - "$work/result-$v.json" "$work/self-$v.jsonl" << 'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
selves = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
names = r["run_functions"]
tot = {}
for run in r["runs"]:
    period = run.get("sample_period_ns", 0)
    cols = run["functions"]
    for k, i in enumerate(cols["id"]):
        col = lambda key: cols.get(key, [0] * len(cols["id"]))[k]
        t = tot.setdefault(names[i], [0, 0, 0])
        t[0] += col("calls"); t[1] += col("self_samples") * period; t[2] += col("self_samples")
print(f"{'function':<15} {'cpu/call':>9} {'own CPU':>9} {'ratio':>6} {'samples':>8}")
for name, (calls, ns, n) in tot.items():
    tc = sum(s[name]["calls"] for s in selves if name in s)
    tn = sum(s[name]["cpu_ns"] for s in selves if name in s)
    if calls and tc:
        print(f"{name:<15} {ns / calls / 1e3:8.2f}us {tn / tc / 1e3:8.2f}us {ns / calls / (tn / tc):6.3f} {n:>8}")
EOF
done
echo
echo "# $(uptime)"
