#!/usr/bin/env bash
# gate in a PID namespace of its own, as in a container or a pod (issue 55): under
# `unshare --pid --fork --mount-proc`, gate run, gate ab, the service config
# (examples/shop/gate-service.yaml) and --profile measure what they measure on the host: the same
# calls per execution of every declared function (the shop is seeded: same seed, same calls), and
# samples in the profile. Also: a /proc of another namespace is refused with its fix, never
# measured as "timed no call". Env: GATE_BIN, GATE_ROOT. Exit 77 (skipped) when not root.
set -uo pipefail
source "$GATE_ROOT/ci/env.sh"
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: pid_namespace_test needs root (BPF, unshare --pid)"; exit 77; fi
for t in unshare go python3; do
  command -v $t >/dev/null || { echo "FAIL: $t missing (ci/setup.sh installs it)"; exit 1; }
done
gate=$(readlink -f "$GATE_BIN")
calls_of="$GATE_ROOT/tests/ci/calls_of.py"
work=$(mktemp -d /tmp/gate-pidns-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$GATE_ROOT/examples/shop" "$work/shop"
(cd "$work/shop" && go build -o bin/shop ./cmd/shop && go build -o bin/shopd ./cmd/shopd &&
  go build -o bin/shopload ./cmd/shopload) || { echo "FAIL: go build of examples/shop"; exit 1; }
cd "$work/shop"
# Fewer orders and requests than the example's: counts, not times, are compared.
sed -i 's/^workload: bin\/shop -orders 2000/workload: bin\/shop -orders 300/' gate.yaml
sed -i 's/-requests 500/-requests 100/; s/^  rounds: 3/  rounds: 1/' gate-service.yaml
ns=(unshare --pid --fork --mount-proc)
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

# run NAME CMD...: runs CMD, its output into NAME.log; 0 when it exited 0.
run() {
  local name=$1; shift
  local t0=$SECONDS
  "$@" > "$work/$name.log" 2>&1
  local rc=$?
  echo "  $name: exit $rc in $((SECONDS - t0)) s"
  [[ $rc -eq 0 ]] || sed 's/^/    /' "$work/$name.log" | tail -20
  return $rc
}

echo "  the host's PID namespace: $(readlink /proc/self/ns/pid); unshare's: $("${ns[@]}" readlink /proc/self/ns/pid)"

# gate run: host and namespace, one run each, the same calls.
run host-run "$gate" run -c gate.yaml --no-build --runs 1 -q --out "$work/host-run.json" &&
  run ns-run "${ns[@]}" "$gate" run -c gate.yaml --no-build --runs 1 -q --out "$work/ns-run.json" &&
  python3 "$calls_of" "$work/host-run.json" "$work/ns-run.json" && pass "gate run in a PID namespace: same calls as on the host" ||
  fail "gate run in a PID namespace"

# gate ab (an A/A: one binary both sides, at one look): the head's calls as the host's gate run's.
run ns-ab "${ns[@]}" "$gate" ab -c gate.yaml --no-build --base-binary bin/shop --head-binary bin/shop --runs 2 --max-runs 2 \
  --out-base "$work/ns-ab-base.json" --out-head "$work/ns-ab-head.json" -q
rc=$?
if [[ $rc -le 1 ]] && python3 "$calls_of" "$work/host-run.json" "$work/ns-ab-head.json" &&
  python3 "$calls_of" "$work/host-run.json" "$work/ns-ab-base.json"; then
  pass "gate ab in a PID namespace: both sides' calls as on the host (exit $rc)"
else
  fail "gate ab in a PID namespace (exit $rc)"
fi

# The service form: shopd probed, shopload driving it on a {port}.
run host-svc "$gate" run -c gate-service.yaml --no-build --runs 1 -q --out "$work/host-svc.json" &&
  run ns-svc "${ns[@]}" "$gate" run -c gate-service.yaml --no-build --runs 1 -q --out "$work/ns-svc.json" &&
  python3 "$calls_of" "$work/host-svc.json" "$work/ns-svc.json" && pass "service config in a PID namespace: same calls as on the host" ||
  fail "service config in a PID namespace"

# --profile: the sampler follows the workload by the same PID; the profile holds samples.
if run ns-profile "${ns[@]}" "$gate" run -c gate.yaml --no-build --runs 1 --profile --profile-out "$work/ns.pb.gz"; then
  line=$(grep -o 'CPU profile: [^)]*' "$work/ns-profile.log" | head -1)
  samples=$(grep -oE '[0-9]+ samples' <<<"$line" | grep -oE '[0-9]+' | head -1)
  echo "  $line"
  if [[ -s $work/ns.pb.gz && ${samples:-0} -gt 0 ]]; then pass "--profile in a PID namespace: $samples samples"; else fail "--profile in a PID namespace: no samples"; fi
else
  fail "--profile in a PID namespace"
fi

# A /proc of the host's namespace inside a new one: refused with the fix, not "timed no call".
out=$(unshare --pid --fork "$gate" run -c gate.yaml --no-build --runs 1 -q 2>&1); rc=$?
if [[ $rc -eq 3 ]] && grep -q 'mount-proc' <<<"$out" && ! grep -q 'timed no call' <<<"$out"; then
  pass "a /proc of another namespace: exit 3, fix names --mount-proc"
else
  fail "a /proc of another namespace (exit $rc)"; sed 's/^/    /' <<<"$out"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
