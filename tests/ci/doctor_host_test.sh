#!/usr/bin/env bash
# gate doctor's host line (issues 39 item 5 and 41): as root, `gate doctor --host-line` prints the
# kernel and the measured cost of a probe hit on an emulated and on a single-stepped instruction
# (gate/doctor/uprobe_hit_cost.*), both positive and the single-step the dearer (it takes a second trap);
# `gate doctor` prints it under its header and `--format json` carries the figures; without BPF
# privileges the line says why nothing was measured and still exits 0.
# Env: GATE_BIN, GATE_ROOT. Exit 77 (skipped) when not root.
set -uo pipefail
: "${GATE_BIN:?}"
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: doctor_host_test loads BPF: needs root"; exit 77; fi
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
gate=$(readlink -f "$GATE_BIN")

line=$("$gate" doctor --host-line); rc=$?
echo "  $line"
re='^Linux [^ ]+ x86_64, [0-9]+ CPUs; probe hit: emulated ([0-9.]+) us, single-stepped ([0-9.]+) us \(median of 5 rounds x [0-9]+ calls\)$'
if [[ $rc -eq 0 && $line =~ $re ]]; then
  emu=${BASH_REMATCH[1]} step=${BASH_REMATCH[2]}
  ok "host line as root (exit 0)"
  awk -v e="$emu" -v s="$step" 'BEGIN { exit !(e > 0.01 && s > 0.01) }' && ok "both costs measured (> 0.01 us): $emu us, $step us" ||
    bad "a cost read zero: emulated $emu us, single-stepped $step us"
  awk -v e="$emu" -v s="$step" 'BEGIN { exit !(s > e) }' && ok "the single-stepped hit costs more than the emulated one" ||
    bad "single-stepped ($step us) not dearer than emulated ($emu us)"
else bad "host line (exit $rc): '$line'"; fi

out=$("$gate" doctor 2>&1); rc=$?
[[ $rc -eq 0 ]] && grep -Eq '^  host  Linux .*probe hit: emulated' <<<"$out" && ok "gate doctor prints the host line under its header" ||
  bad "gate doctor (exit $rc) has no host line: $out"
json=$("$gate" doctor --format json)
python3 -c 'import json,sys; j=json.loads(sys.argv[1]); c=j["probe_cost"]; assert c["emulated_ns"] > 0 and c["single_stepped_ns"] > 0 and j["host"].startswith("Linux ")' "$json" &&
  ok "--format json: host and probe_cost {emulated_ns, single_stepped_ns}" || bad "--format json lacks the probe costs: $json"

nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)
tmpd=$(mktemp -d); cp "$gate" "$tmpd/gate"; chmod -R a+rX "$tmpd"
line=$("${nobody[@]}" "$tmpd/gate" doctor --host-line 2>&1); rc=$?
rm -rf "$tmpd"
[[ $rc -eq 0 && $line == *"probe hit: not measured (no BPF privileges: see privileges)" ]] &&
  ok "unprivileged: '${line#*; }'" || bad "unprivileged host line (exit $rc): $line"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
