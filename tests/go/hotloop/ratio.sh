#!/usr/bin/env bash
# hot's own time per call in the head (-tags gateslow8) over the base's, by the program's own clock.
# 5 runs, each the two binaries side by side on one CPU, taking turns batch by batch
# (-selftime-paired: 500 batches of 2,000 calls each, timed by the thread's CPU clock, alternating
# through two FIFOs, so that both meet the same machine and neither counts the other's time);
# a run's figure is the median of its per-batch head/base ratios (batch k of the head over batch k
# of the base); prints each run's median base and head ns/call and ratio, and the median of the 5.
# Usage: tests/go/hotloop/ratio.sh [GO]   (GO: the go command, default the newest in /opt/gate-go)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
go=${1:-$(ls -d /opt/gate-go/*/usr/lib/go-*/bin/go 2>/dev/null | sort -V | tail -1)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$here" && GOTOOLCHAIN=local GOFLAGS=-mod=mod "$go" build -o "$out/base" . &&
  GOTOOLCHAIN=local GOFLAGS=-mod=mod "$go" build -tags gateslow8 -o "$out/head" .)
cpu=${CPU:-0}  # both on one CPU: the vCPUs of a VM differ in speed from moment to moment
mkfifo "$out/a" "$out/b"
echo "go: $("$go" version | awk '{print $3}')"
ratios=()
for i in 1 2 3 4 5; do
  taskset -c "$cpu" "$out/base" -selftime-paired "$out/a:$out/b" >"$out/base.txt" &
  pb=$!
  taskset -c "$cpu" "$out/head" -selftime-paired "$out/b:$out/a" >"$out/head.txt" &
  ph=$!
  printf x >"$out/a"  # the base's first turn
  wait $pb $ph
  r=$(paste "$out/base.txt" "$out/head.txt" | awk '{b[NR]=$1; h[NR]=$2; q[NR]=$2/$1}
    function med(a, n,   s, i, j, t) { for (i=1;i<=n;i++) s[i]=a[i];
      for (i=1;i<=n;i++) for (j=i+1;j<=n;j++) if (s[j]<s[i]) {t=s[i]; s[i]=s[j]; s[j]=t}
      return n%2 ? s[(n+1)/2] : (s[n/2]+s[n/2+1])/2 }
    END {printf "%.1f %.1f %.4f", med(b,NR), med(h,NR), med(q,NR)}')
  read -r mb mh q <<<"$r"
  echo "run $i: base $mb ns/call, head $mh ns/call (medians of 500 batches), head/base $q (median of the batch ratios)"
  ratios+=("$q")
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END {printf "head/base, median of 5 runs: %.4f\n", v[3]}'
