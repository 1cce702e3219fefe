#!/usr/bin/env bash
# Issue 39's acceptance, repeated: gate ab with the config's defaults (measure: auto, calls: auto)
# and a 5% band on tests/go/hotloop (main.hot: ~2 us of own CPU a call, 100,000 calls an execution;
# under probes a hit on its ret costs 6-22 us on a VM), base against base (A/A) and base against the
# head that does ~8% more work in hot's own loop (-tags gateslow8). Prints per trial gate's exit
# code, main.hot's instrument, verdict, ratio, interval, pairs and the trial's wall time, then the
# tally. Root (BPF). Figures, not pass/fail: docs/how-it-measures.md quotes its output.
#
# With --bench-aa / --bench-head: the same comparisons as a benchmarks-only gate (gate-bench.yaml:
# `benchmarks: go`, no functions, so no probe and no BPF): BenchmarkHot's ns/op of the test binaries.
# With --bench-cpu the benchmarks-only config also sets benchmark_cpu: true (cpu-ns/op beside ns/op),
# and the line shows both metrics.
#
# Usage: tests/bench/sampled_lab.sh [--trials N] [--aa N] [--head N] [--bench-aa N] [--bench-head N] [--bench-cpu] [-- GATE_AB_ARGS...]
#   --trials N  trials of each function kind (default 10); --aa / --head set one kind's count (0 skips it)
#   --bench-aa N, --bench-head N: benchmarks-only trials (default 0)
# Environment: GATE (default build/gate/cli/gate), GATE_GO (default the newest installed Go).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
source "$here/ci/env.sh"
aa=10 head=10 bench_aa=0 bench_head=0 bench_cpu=0 ab_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --trials) aa="${2:?--trials needs a count}"; head="$aa"; shift 2 ;;
    --aa) aa="${2:?--aa needs a count}"; shift 2 ;;
    --head) head="${2:?--head needs a count}"; shift 2 ;;
    --bench-aa) bench_aa="${2:?--bench-aa needs a count}"; shift 2 ;;
    --bench-head) bench_head="${2:?--bench-head needs a count}"; shift 2 ;;
    --bench-cpu) bench_cpu=1; shift ;;
    --) shift; ab_args=("$@"); break ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "sampled_lab: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "sampled_lab: needs root (gate ab loads BPF); run as root" >&2; exit 2; }
gate="${GATE:-$here/build/gate/cli/gate}"
[[ -x "$gate" ]] || { echo "sampled_lab: no gate at $gate: build it (ci/build.sh) or set GATE" >&2; exit 2; }
GATE_GO="${GATE_GO:-$(gate_newest_go)}"
[[ -x "${GATE_GO:-}" ]] || { echo "sampled_lab: no Go toolchain: run ci/setup.sh or set GATE_GO" >&2; exit 2; }
tmp="$(mktemp -d /tmp/gate-sampled-lab.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/tests/go/hotloop" "$tmp/hotloop"
cd "$tmp/hotloop"
"$GATE_GO" build -o bin/hotloop . && "$GATE_GO" build -tags gateslow8 -o bin/hotloop-head .
if [[ $((bench_aa + bench_head)) -gt 0 ]]; then
  "$GATE_GO" test -c -o bin/hotloop.test . && "$GATE_GO" test -c -tags gateslow8 -o bin/hotloop-head.test .
  [[ $bench_cpu -eq 1 ]] && echo "benchmark_cpu: true" >> gate-bench.yaml
fi
echo "sampled_lab: $("$GATE_GO" version), gate $("$gate" --version 2>&1 | head -n 1), load $(cut -d' ' -f1-3 /proc/loadavg)"

declare -A tally
trial() {  # kind, head binary, index[, config, base binary]
  local kind="$1" headbin="$2" k="$3" cfg="${4:-gate.yaml}" basebin="${5:-bin/hotloop}" t0 code
  t0=$(date +%s)
  set +e
  "$gate" ab -c "$cfg" --base-binary "$basebin" --head-binary "$headbin" -q --report-dir "r-$kind-$k" \
    "${ab_args[@]}" > "out-$kind-$k.txt" 2> "err-$kind-$k.txt"
  code=$?
  set -e
  python3 - "r-$kind-$k/report.json" "$kind" "$k" "$code" "$(( $(date +%s) - t0 ))" <<'PY'
import json, sys
path, kind, k, code, secs = sys.argv[1:]
try:
    r = json.load(open(path))
except OSError:
    print(f"{kind} {k}: exit {code}, no report ({secs} s)"); sys.exit(0)
if not r["functions"]:  # benchmarks only: BenchmarkHot's ns/op
    ms = [x for x in r["benchmarks"]["metrics"] if x["benchmark"].startswith("BenchmarkHot") and x["unit"] in ("ns/op", "cpu-ns/op")]
    def modes(b):  # the modes across executions, when a side showed them (stats/benchmark_modes.hpp)
        m = b.get("modes")
        return "" if not m else (f" (2 modes in {m['found_in']}{', apart' if m['apart'] else ''}, on "
                                 f"{m['verdict_rests_on']})")
    print(f"{kind} {k}: exit {code}, {ms[0]['benchmark']} " + "; ".join(
        f"{b['unit']}: {b['verdict']} {b['worse_ratio']:.3f} [{b['worse_ci_low']:.3f}, {b['worse_ci_high']:.3f}]{modes(b)}"
        for b in ms) + f" at {r['base_runs']} pairs, {secs} s")
    sys.exit(0)
f = next(x for x in r["functions"] if x["name"] == "main.hot")
q = f["quantiles"][0]
others = [x["name"] for x in r["functions"] if x["name"] != "main.hot" and x["verdict"] in ("regression", "suspect")]
share = f.get("sampled", {}).get("probe_share")
print(f"{kind} {k}: exit {code}, main.hot by {f['instrument']}"
      f"{'' if share is None else f' (probes {100*share:.0f}%)'}: {f['verdict']} {q['name']} {q['ratio']:.3f}"
      f" [{q['ci_low']:.3f}, {q['ci_high']:.3f}] at {r['base_runs']} pairs, {secs} s"
      f"{'; also flagged: ' + ', '.join(others) if others else ''}")
PY
  tally["$kind $code"]=$(( ${tally["$kind $code"]:-0} + 1 ))
}
for k in $(seq 1 "$aa"); do trial aa bin/hotloop "$k"; done
for k in $(seq 1 "$head"); do trial head8 bin/hotloop-head "$k"; done
for k in $(seq 1 "$bench_aa"); do trial bench-aa bin/hotloop.test "$k" gate-bench.yaml bin/hotloop.test; done
for k in $(seq 1 "$bench_head"); do trial bench-head8 bin/hotloop-head.test "$k" gate-bench.yaml bin/hotloop.test; done
echo "tally (kind exit: trials):"
for key in "${!tally[@]}"; do echo "  $key: ${tally[$key]}"; done | sort
