#!/usr/bin/env bash
# Issue 44's "a shard whose runner is 1.5x slower" on the shop: an A/A of 3 shards (12 pairs) merged,
# shard 2 beside a CPU hog whose duty cycle is sized so that the shop runs ~1.5x slower beside it.
# Per trial: what the merge flagged, and shard 2's measured speed (its runs' median time an execution
# against shards 1 and 3's). Usage: tests/bench/shards_hog_trial.sh GATE [TRIALS] [TARGET] (as root;
# defaults 3 trials, 1.5x). Builds the shop into $TMPDIR/shards-trial as tests/bench/shards_trial.sh.
set -uo pipefail
gate="$1"; trials="${2:-3}"; target="${3:-1.5}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
t="${TMPDIR:-/tmp}/shards-trial"
cfg="$root/examples/shop/gate.yaml"
ncpu=$(nproc)
if [[ ! -x $t/base/shop2 ]]; then
  mkdir -p $t/base
  (cd $root/examples/shop && go build -o $t/base/shop ./cmd/shop)
  cp $t/base/shop $t/base/shop2   # the A/A's head: the same build under another path
fi
echo "# $0 $*"; echo "# $(uptime)"; echo "# gate $("$gate" --version 2>&1 | head -1), $ncpu CPUs"

hogpids=()
hog_start() {  # $1 duty cycle (0-1): one python loop per CPU, busy $1 of every 20 ms, asleep the rest
  for _ in $(seq 1 "$ncpu"); do
    python3 -c "
import time
on = 0.020 * $1; off = 0.020 - on
while True:
    t = time.perf_counter()
    while time.perf_counter() - t < on: pass
    if off > 0: time.sleep(off)" &
    hogpids+=($!)
  done
}
hog_stop() { for p in "${hogpids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; hogpids=(); }
trap hog_stop EXIT

shop_time() {  # median wall seconds of 3 runs of the config's workload
  for _ in 1 2 3; do
    local s=$(date +%s.%N); $t/base/shop -orders 2000 > /dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc
  done | sort -n | sed -n 2p
}

# Size the duty cycle: start at target - 1 (a CPU-bound process beside one busy loop per CPU at duty d
# gets ~1 / (1 + d) of a CPU), then scale d by the slowdown still missing, up to 4 tries.
duty=$(echo "$target - 1" | bc -l)
for try in 1 2 3 4; do
  alone=$(shop_time); hog_start "$duty"; beside=$(shop_time); hog_stop
  slow=$(echo "$beside / $alone" | bc -l)
  printf '# sizing %d: duty %.2f: the shop %.2f s alone, %.2f s beside the hog: %.2fx\n' "$try" "$duty" "$alone" "$beside" "$slow"
  if (( $(echo "($slow - $target)^2 < 0.01" | bc -l) )); then break; fi
  duty=$(echo "d = $duty * ($target - 1) / ($slow - 1); if (d > 1) d = 1; if (d < 0.05) d = 0.05; d" | bc -l)
done

speed() {  # shard 2's median time an execution / the mean of shards 1 and 3's
  python3 - "$@" <<'EOF'
import json, statistics, sys
med = []
for path in sys.argv[1:]:
    p = json.load(open(path))
    med.append(statistics.median(r["duration_s"] / max(1, r.get("executions", 1)) for r in p["base"]["runs"] + p["head"]["runs"]))
print(f"{med[1] / ((med[0] + med[2]) / 2):.2f}")
EOF
}

for i in $(seq 1 "$trials"); do
  name=hog$i; s=$(date +%s)
  for k in 1 2 3; do
    [[ $k == 2 ]] && hog_start "$duty"
    "$gate" ab -q -c "$cfg" --base-binary $t/base/shop --head-binary $t/base/shop2 --runs 12 --shard $k/3 \
      --partial-out $t/$name-p$k.json > $t/$name-shards.txt 2>&1
    [[ $k == 2 ]] && hog_stop
  done
  "$gate" merge -c "$cfg" $t/$name-p1.json $t/$name-p2.json $t/$name-p3.json > $t/$name-merge.txt 2> $t/$name-merge.err
  rc=$?
  echo "$name: merge exit $rc ($(( $(date +%s) - s )) s); flagged [$(awk '$1=="regression"||$1=="improvement"{printf "%s %s ", $1, $2}' $t/$name-merge.txt)]; shard 2 beside the hog (duty $(printf %.2f $duty)) measured $(speed $t/$name-p1.json $t/$name-p2.json $t/$name-p3.json)x the time an execution of shards 1 and 3"
  grep '^gate: ' $t/$name-merge.err | sed 's/^/    /'
  grep -i 'noisy' $t/$name-merge.txt | sed 's/^/    /'
  tail -1 $t/$name-merge.txt | sed 's/^/    merge: /'
done
echo "# $(uptime)"
