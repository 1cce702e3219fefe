#!/usr/bin/env bash
# gate doctor on this real host: passes as root with the shop example, and each check that this
# host can be made to fail fails once and prints its fix: an unprivileged user (setpriv: no
# capabilities), a tiny RLIMIT_MEMLOCK (prlimit), maps above gate's ceiling, a non-Go binary, a bad
# config. Kernel, BTF and lockdown failures need another kernel: tests/doctor/doctor_test.cpp.
# Env: GATE_BIN (the gate to test), GATE_ROOT. Exit 77 (skipped) when not root.
set -uo pipefail
source "$GATE_ROOT/ci/env.sh"
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: doctor_test needs root (it changes users and limits)"; exit 77; fi
for t in setpriv prlimit go python3; do
  command -v $t >/dev/null || { echo "FAIL: $t missing (ci/setup.sh installs it)"; exit 1; }
done
gate=$(readlink -f "$GATE_BIN")
work=$(mktemp -d /tmp/gate-doctor-XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cp -r "$GATE_ROOT/examples/shop" "$work/shop"
(cd "$work/shop" && go build -o bin/shop ./cmd/shop) || { echo "FAIL: go build of examples/shop"; exit 1; }
cp "$gate" "$work/gate" && chmod -R a+rX "$work"
cfg="$work/shop/gate.yaml"
passed=0 failed=0

# expect NAME WANT_RC PATTERN... -- CMD...: exit code WANT_RC and every PATTERN (grep -E) in the output.
expect() {
  local name=$1 want=$2; shift 2
  local pats=()
  while [[ $1 != -- ]]; do pats+=("$1"); shift; done
  shift
  local out rc
  out=$("$@" 2>&1); rc=$?
  local ok=1
  [[ $rc -eq $want ]] || ok=0
  for p in "${pats[@]}"; do grep -Eq -- "$p" <<<"$out" || { ok=0; echo "  missing: $p"; }; done
  if [[ $ok -eq 1 ]]; then
    passed=$((passed + 1)); echo "ok: $name"
  else
    failed=$((failed + 1)); echo "FAIL: $name (exit $rc, wanted $want)"; sed 's/^/    /' <<<"$out"
  fi
}

expect "root: gate can run" 0 '^  ok    attach +example.com/shop' 'gate can run here' -- "$work/gate" doctor -c "$cfg"
expect "json: same checks" 0 '"name": "attach"' '"can_run": true' -- "$work/gate" doctor -c "$cfg" --format json
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)
expect "unprivileged: privileges, paranoid and attach fail with fixes" 3 \
  '^  fail  privileges' 'fix: gate needs CAP_BPF' '^  fail  perf_event_paranoid' 'fix: run gate as root or grant CAP_PERFMON' \
  '^  fail  attach' 'gate cannot run here' -- "${nobody[@]}" "$work/gate" doctor -c "$cfg"
kernel=$(uname -r); major=${kernel%%.*}; rest=${kernel#*.}; minor=${rest%%.*}
if (( major > 5 || (major == 5 && minor >= 11) )); then
  expect "tiny memlock: reported, not used by Linux $kernel" 0 'ok    memlock .*RLIMIT_MEMLOCK 0.1 MiB .*not used' -- prlimit --memlock=65536:65536 "$work/gate" doctor -c "$cfg"
else
  expect "tiny memlock on Linux $kernel" 3 '^  fail  memlock' 'ulimit -l unlimited' -- \
    prlimit --memlock=65536:65536 setpriv --inh-caps=-sys_resource --bounding-set=-sys_resource "$work/gate" doctor -c "$cfg"
fi
sed 's/^runs: 5/max_in_flight: 16000000\nruns: 5/' "$cfg" > "$work/shop/huge.yaml"
expect "maps above gate's ceiling" 3 '^  fail  memlock' 'fix:' -- "$work/gate" doctor -c "$work/shop/huge.yaml"
sed "s|^binary: .*|binary: $(command -v true)|; /^build:/d" "$cfg" > "$work/shop/notgo.yaml"
expect "non-Go binary" 3 '^  fail  binary' 'fix:' -- "$work/gate" doctor -c "$work/shop/notgo.yaml"
printf 'name: x\nruns: nope\n' > "$work/shop/bad.yaml"
expect "bad config" 2 '^  fail  config' -- "$work/gate" doctor -c "$work/shop/bad.yaml"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
