#!/usr/bin/env bash
# What exclude_preemption's sched_switch program costs: it runs on every context switch of the
# machine. Runs `gate run --exclude-preemption` on the shop example with the kernel's BPF run-time
# statistics on (kernel.bpf_stats_enabled, restored after), samples `bpftool prog show` while the
# runs last, and prints the program's mean time per context switch, the machine's switch rate
# meanwhile, and their product: the share of one CPU it took. Figures, not pass/fail.
# Usage (root, after ci/build.sh): sudo tests/bench/preemption_cost.sh [RUNS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
gate="${GATE_BIN:-$root/build/gate/cli/gate}"
runs="${1:-5}"
[ "$(id -u)" = 0 ] || { echo "preemption_cost: needs root (BPF)" >&2; exit 2; }
command -v bpftool >/dev/null || { echo "preemption_cost: bpftool not found (run ci/setup.sh)" >&2; exit 2; }
old="$(sysctl -n kernel.bpf_stats_enabled)"
trap 'sysctl -qw kernel.bpf_stats_enabled="$old"' EXIT
sysctl -qw kernel.bpf_stats_enabled=1
out="$(mktemp)"
"$gate" run -c "$root/examples/shop/gate.yaml" --runs "$runs" --exclude-preemption -q >"$out" 2>&1 &
pid=$!
first="" last=""
while kill -0 "$pid" 2>/dev/null; do
  line="$(bpftool prog show name gate_switch 2>/dev/null | head -1 || true)"
  if [ -n "$line" ]; then
    now="$(date +%s.%N)"
    ns="$(sed -n 's/.*run_time_ns \([0-9]*\).*/\1/p' <<<"$line")"
    cnt="$(sed -n 's/.*run_cnt \([0-9]*\).*/\1/p' <<<"$line")"
    [ -n "$ns" ] && { [ -z "$first" ] && first="$now $ns $cnt"; last="$now $ns $cnt"; }
  fi
  sleep 0.2
done
wait "$pid" || { echo "preemption_cost: gate run failed:" >&2; cat "$out" >&2; exit 1; }
rm -f "$out"
[ -n "$first" ] && [ "$first" != "$last" ] || { echo "preemption_cost: gate_switch was never seen running" >&2; exit 1; }
read -r t0 ns0 c0 <<<"$first"
read -r t1 ns1 c1 <<<"$last"
awk -v t0="$t0" -v t1="$t1" -v ns0="$ns0" -v ns1="$ns1" -v c0="$c0" -v c1="$c1" 'BEGIN {
  calls = c1 - c0; secs = t1 - t0; per = (ns1 - ns0) / calls; rate = calls / secs;
  printf "gate_switch: %d context switches in %.1f s (%.0f/s on the machine), %.0f ns each: %.3f%% of one CPU\n",
         calls, secs, rate, per, 100 * per * rate / 1e9;
  printf "  at 100000 switches/s (a switch-heavy host) that would be %.1f%% of one CPU\n", 100 * per * 1e5 / 1e9 }'
