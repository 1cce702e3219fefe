#!/usr/bin/env bash
# Go benchmarks are measured without probes (issue 39): BenchmarkHot's ns/op of the hotloop test
# binary (tests/go/hotloop, ~2 us a call) run bare, against the same binary under `gate run` with
# hot and five other functions declared (benchmarks: go). Interleaved, bare, gate, bare, gate ...,
# N of each (default 5); prints every figure, the medians and gate/bare. With benchmarks measured
# from clean executions the ratio reads ~1.00; the probed execution's own ns/op (read from gate's
# kept output) is printed beside it: what `benchmarks: go` compared before issue 39.
# Prints figures, not pass/fail. Root (BPF).
#
# Usage: tests/bench/bench_under_probes.sh [--pairs N] [--calls N]
# Environment: GATE (the gate binary; default build/gate/cli/gate), GATE_GO (go; default the newest).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
source "$here/ci/env.sh"
pairs=5 calls=100000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --pairs) pairs="${2:?--pairs needs a count}"; shift 2 ;;
    --calls) calls="${2:?--calls needs a count}"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "bench_under_probes: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$pairs" =~ ^[1-9][0-9]*$ && "$calls" =~ ^[1-9][0-9]*$ ]] || { echo "bench_under_probes: --pairs and --calls take positive counts" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "bench_under_probes: needs root (gate run loads BPF); run as root" >&2; exit 2; }
gate="${GATE:-$here/build/gate/cli/gate}"
[[ -x "$gate" ]] || { echo "bench_under_probes: no gate binary at $gate; build it (bash ci/build.sh) or set GATE" >&2; exit 2; }
go="${GATE_GO:-$(gate_newest_go)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here/tests/go/hotloop" && "$go" test -c -o "$work/hotloop.test" .)
# The workload: BenchmarkHot with a count, then one BenchmarkRound pass so that the other declared
# functions are called too (gate's speed normalization needs them in every run).
cat >"$work/workload.sh" <<WL
"\$GATE_BINARY" -test.run '^\$' -test.bench '^BenchmarkHot\$' -test.benchtime ${calls}x -test.count 1
"\$GATE_BINARY" -test.run '^\$' -test.bench '^BenchmarkRound\$' -test.benchtime 200x -test.count 1
WL
cat >"$work/gate.yaml" <<CFG
name: bench-under-probes
binary: hotloop.test
workload: GATE_BINARY=\$GATE_BINARY sh workload.sh
benchmarks: go
runs: 1
timeout: 600s
env: {GOMAXPROCS: "2"}
functions:
  - gate.test/hotloop.hot
  - gate.test/hotloop.fnvLoop
  - gate.test/hotloop.floatMix
  - gate.test/hotloop.sieve
  - gate.test/hotloop.matMul
  - gate.test/hotloop.popLoop
  - gate.test/hotloop.insertionSort
CFG
nsop() { awk '$1 ~ /^BenchmarkHot(-[0-9]+)?$/ {for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") {print $i; exit}}' "$1"; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
echo "gate: $("$gate" --version 2>/dev/null | head -1); go: $("$go" version | awk '{print $3}'); $(uname -r); $(nproc) CPUs"
echo "BenchmarkHot, -test.benchtime ${calls}x; hot, fnvLoop, floatMix, sieve, matMul, popLoop, insertionSort declared"
printf '%-5s %14s %18s %22s %10s\n' pair "bare ns/op" "gate run ns/op" "(probed execution)" "exec s"
bare=() under=() probed=()
for k in $(seq 1 "$pairs"); do
  (cd "$work" && GATE_BINARY=./hotloop.test sh workload.sh >"$work/bare-$k.txt")
  b=$(nsop "$work/bare-$k.txt")
  rm -rf "$work/out-$k"
  "$gate" run -c "$work/gate.yaml" --no-build -o "$work/run-$k.json" --keep-output "$work/out-$k" >"$work/gate-$k.txt" 2>&1 ||
    { echo "bench_under_probes: gate run failed:" >&2; tail -20 "$work/gate-$k.txt" >&2; exit 1; }
  # gate's figure: the run JSON's (what gate compares), with where it came from.
  g=$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["runs"][0]
ns=[m["value"] for b in r.get("benchmarks", {}).get("results", []) if b["name"].split("-")[0] == "BenchmarkHot"
    for m in b["metrics"] if m["unit"] == "ns/op"]
print(ns[0] if ns else "nan", r.get("clean_executions", 0), r.get("clean_duration_s", 0), r.get("duration_s", 0))' "$work/run-$k.json")
  read -r u clean clean_s probed_s <<<"$g"
  [[ "$clean" -ge 1 ]] || { echo "bench_under_probes: run $k: the result names no clean execution" >&2; exit 1; }
  p=$(nsop "$work/out-$k/run-1.stdout")
  printf '%-5s %14s %18s %22s %10s\n' "$k" "$b" "$u" "$p" "$(printf '%.1f/%.1f' "$clean_s" "$probed_s")"
  bare+=("$b") under+=("$u") probed+=("$p")
done
mb=$(median "${bare[@]}") mu=$(median "${under[@]}") mp=$(median "${probed[@]}")
echo "medians: bare $mb ns/op, gate run (clean executions) $mu ns/op, probed executions $mp ns/op"
awk -v b="$mb" -v u="$mu" -v p="$mp" 'BEGIN {printf "gate/bare: %.3f (clean executions, what gate compares); probed/bare: %.1f\n", u / b, p / b}'
echo "exec s: clean/probed execution wall time of the gate run"
