#!/usr/bin/env bash
# Acceptance trials of issue 44 on the shop: one gate ab of 12 fixed pairs vs 3 shards of 12 pairs merged,
# A/A and Apply 1.3x (the demo's head), then an A/A whose shard 2 runs beside a CPU hog.
# Usage: tests/bench/shards_trial.sh GATE [TRIALS] (as root; docs/sharding.md quotes its figures)
set -uo pipefail
gate="$1"; trials="${2:-3}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
t="${TMPDIR:-/tmp}/shards-trial"
cfg="$root/examples/shop/gate.yaml"
if [[ ! -x $t/base/shop ]]; then
  mkdir -p $t/base $t/head $t/headsrc
  (cd $root/examples/shop && go build -o $t/base/shop ./cmd/shop)
  cp -r $root/examples/shop/. $t/headsrc/
  printf 'package main\n\nimport "os"\n\nfunc init() { os.Setenv("SHOP_SLOW", "example.com/shop/pricing.Apply=1.3") }\n' > $t/headsrc/cmd/shop/zz_slow.go
  (cd $t/headsrc && go build -o $t/head/shop ./cmd/shop)
  cp $t/base/shop $t/base/shop2   # the A/A's head: the same build under another path
fi
one() {  # $1 name, $2 head binary, $3 hog shard (0: none)
  local name=$1 head=$2 hog=$3
  local s=$(date +%s)
  "$gate" ab -q -c "$cfg" --base-binary $t/base/shop --head-binary "$head" --runs 12 --max-runs 12 > $t/$name-ab.txt 2>&1
  local rc_ab=$? e_ab=$(( $(date +%s) - s ))
  s=$(date +%s)
  for k in 1 2 3; do
    hogpids=()
    if [[ $k == "$hog" ]]; then for c in 1 2; do (while :; do :; done) & hogpids+=($!); done; fi
    "$gate" ab -q -c "$cfg" --base-binary $t/base/shop --head-binary "$head" --runs 12 --shard $k/3 --partial-out $t/$name-p$k.json >> $t/$name-shards.txt 2>&1
    for p in "${hogpids[@]}"; do kill "$p"; done
  done
  local e_sh=$(( $(date +%s) - s ))
  "$gate" merge -c "$cfg" $t/$name-p1.json $t/$name-p2.json $t/$name-p3.json > $t/$name-merge.txt 2> $t/$name-merge.err
  local rc_m=$?
  echo "$name: gate ab exit $rc_ab (${e_ab}s) flagged [$(awk '$1=="regression"{printf "%s ", $2}' $t/$name-ab.txt)]; merge exit $rc_m (shards ${e_sh}s) flagged [$(awk '$1=="regression"{printf "%s ", $2}' $t/$name-merge.txt)]"
  grep '^gate: shard' $t/$name-merge.err | sed 's/^/    /'
  tail -1 $t/$name-ab.txt | sed 's/^/    ab:    /'
  tail -1 $t/$name-merge.txt | sed 's/^/    merge: /'
}
for i in $(seq 1 "$trials"); do
  one aa$i $t/base/shop2 0
  one slow$i $t/head/shop 0
done
one hog $t/base/shop2 2
