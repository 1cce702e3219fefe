#!/usr/bin/env bash
# The workload without root (issue 55): gate keeps the privileges BPF needs and runs the build, the
# workload, the service and its load driver as an unprivileged user (nobody, uid 65534): by
# run_as:, by --run-as, and by default as SUDO_UID. Each case checks who ran (the processes write
# `id -u` into files of their own, owned by them), that gate's probes still counted their calls,
# and that a service's port works (ready_tcp, then the load). gate run as root without any of them
# says so (a warning naming run_as), and so does gate doctor. Then a CPU quota: gate run in a cgroup
# held to 0.2 CPU names the throttled run, and doctor the quota.
# Env: GATE_BIN, GATE_ROOT. Exit 77 (skipped) when not root.
set -uo pipefail
source "$GATE_ROOT/ci/env.sh"
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: run_as_test needs root (BPF, changing users, cgroups)"; exit 77; fi
command -v go >/dev/null || { echo "FAIL: no Go toolchain (ci/setup.sh installs it)"; exit 1; }
gate=$(readlink -f "$GATE_BIN")
work=$(mktemp -d /tmp/gate-runas-XXXXXX)
cg=""
cleanup() {
  if [[ -n $cg ]]; then echo $$ > "$(dirname "$cg")/cgroup.procs"; rmdir "$cg"; fi
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
cp -r "$GATE_ROOT/examples/shop" "$work/shop"
(cd "$work/shop" && go build -o bin/shop ./cmd/shop && go build -o bin/shopd ./cmd/shopd &&
  go build -o bin/shopload ./cmd/shopload) || { echo "FAIL: go build of examples/shop"; exit 1; }
cd "$work/shop"
# The processes note who they ran as, in the checkout (which nobody owns, as a CI user owns its
# checkout); the build is a shell step, since nobody has no home for Go's cache.
cat > runas.yaml <<'YAML'
name: runas
build: id -u > built-by
binary: bin/shop
workload: bin/shop -orders 200 && id -u > ran-by && echo data > written-by-workload
runs: 1
functions:
  - example.com/shop.(*Cart).Checkout
  - example.com/shop/pricing.Apply
YAML
cat > runas-service.yaml <<'YAML'
name: runas-service
binary: bin/shopd
service:
  command: sh -c 'id -u > served-by; exec bin/shopd -addr 127.0.0.1:{port}'
  ready_tcp: 127.0.0.1:{port}
  load: sh -c 'id -u > loaded-by; exec bin/shopload -addr {url} -requests 50'
  rounds: 1
  warmup_rounds: 0
runs: 1
functions:
  - example.com/shop.(*Cart).Checkout
YAML
chown -R 65534:65534 "$work/shop"
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; [[ -n ${2:-} ]] && sed 's/^/    /' <<<"$2"; }
# owned FILE: "uid content" of a file the processes wrote.
owned() { [[ -f $1 ]] && echo "$(stat -c %u "$1") $(cat "$1")" || echo "missing"; }
calls() { python3 "$GATE_ROOT/tests/ci/calls_of.py" "$1" | head -1; }

case_run() {  # NAME EXPECTED_UID ARGS...: gate run with ARGS; build, workload and data as that uid
  local name=$1 want=$2; shift 2
  rm -f built-by ran-by written-by-workload "$work/r.json"
  local out; out=$("$@" 2>&1); local rc=$?
  local b r w; b=$(owned built-by); r=$(owned ran-by); w=$(owned written-by-workload)
  echo "  $name: exit $rc; build ($b), workload ($r), its file ($w); $(calls "$work/r.json" 2>/dev/null)"
  if [[ $rc -eq 0 && $b == "$want $want" && $r == "$want $want" && $w == "$want data" ]] &&
    python3 "$GATE_ROOT/tests/ci/calls_of.py" "$work/r.json" >/dev/null && ! grep -q 'ran as root' <<<"$out"; then
    pass "$name"
  else
    fail "$name" "$out"
  fi
}
case_run "run_as: nobody in the config" 65534 \
  sh -c "sed 's/^runs: 1/runs: 1\nrun_as: nobody/' runas.yaml > runas-key.yaml && '$gate' run -c runas-key.yaml -q --out '$work/r.json'"
case_run "--run-as 65534" 65534 "$gate" run -c runas.yaml --run-as 65534 -q --out "$work/r.json"
case_run "SUDO_UID (gate under sudo)" 65534 env SUDO_UID=65534 SUDO_GID=65534 "$gate" run -c runas.yaml -q --out "$work/r.json"

# The service and its load as nobody: its port works, its calls are counted.
rm -f served-by loaded-by
out=$("$gate" run -c runas-service.yaml --run-as nobody -q --out "$work/s.json" 2>&1); rc=$?
s=$(owned served-by); l=$(owned loaded-by)
echo "  service: exit $rc; service ($s), load ($l); $(calls "$work/s.json" 2>/dev/null)"
if [[ $rc -eq 0 && $s == "65534 65534" && $l == "65534 65534" ]] && python3 "$GATE_ROOT/tests/ci/calls_of.py" "$work/s.json" >/dev/null; then
  pass "service and load as nobody: port served, calls counted"
else
  fail "service and load as nobody" "$out"
fi

# As root, unasked: said by gate run (not under -q: a note on privileges, not on what was measured;
# gate ab's and check's reports carry it among their warnings) and by doctor.
rm -f ran-by
out=$(env -u SUDO_UID "$gate" run -c runas.yaml --no-build 2>&1); rc=$?
r=$(owned ran-by)
if [[ $rc -eq 0 && $r == "0 0" ]] && grep -q 'warning: the workload, its build and its load driver ran as root' <<<"$out" &&
  grep -q 'run_as: USER' <<<"$out"; then
  pass "root unasked: gate run says so"
else
  fail "root unasked: gate run" "$out"
fi
out=$(env -u SUDO_UID "$gate" doctor -c runas.yaml --no-attach 2>&1)
if grep -Eq '^  warn  run_as +the workload, its build and load driver would run as root' <<<"$out" &&
  grep -q 'gate can run here' <<<"$out"; then
  pass "root unasked: doctor warns"
else
  fail "root unasked: doctor" "$out"
fi
out=$("$gate" doctor -c runas.yaml --no-attach --run-as nobody 2>&1)
grep -Eq '^  ok    run_as +.*uid 65534 \(nobody\), from --run-as' <<<"$out" && pass "doctor --run-as nobody" || fail "doctor --run-as nobody" "$out"
out=$("$gate" run -c runas.yaml --run-as no-such-user-here -q 2>&1); rc=$?
[[ $rc -eq 2 ]] && grep -q 'is not a user of this machine' <<<"$out" && pass "an unknown user: exit 2, named" || fail "an unknown user (exit $rc)" "$out"

rm -f built-by ran-by written-by-workload  # root's, from the case above: nobody could not rewrite them

# A CPU quota: this shell (so gate and its workload) in a cgroup held to 0.2 CPU.
# mountinfo: "... point options [optional fields] - fstype source superoptions".
mounts=$(awk '{for (i = 7; i <= NF; i++) if ($i == "-") { print $(i + 1), $5, $NF; break }}' /proc/self/mountinfo)
cpu=$(awk '$1 == "cgroup" && $3 ~ /(^|,)cpu(,|$)/ {print $2; exit}' <<<"$mounts")
v2=$(awk '$1 == "cgroup2" {print $2; exit}' <<<"$mounts")
if [[ -n $cpu ]]; then
  cg="$cpu$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3; exit}' /proc/self/cgroup)/gate-quota-$$"
  mkdir "$cg" && echo 100000 > "$cg/cpu.cfs_period_us" && echo 20000 > "$cg/cpu.cfs_quota_us"
elif [[ -n $v2 ]] && grep -qw cpu "$v2/cgroup.controllers"; then
  cg="$v2$(awk -F: '$1 == "0" {print $3; exit}' /proc/self/cgroup)/gate-quota-$$"
  mkdir "$cg" && echo "20000 100000" > "$cg/cpu.max"
fi
if [[ -z $cg || ! -d $cg ]]; then
  fail "no cgroup with the cpu controller to set a quota in (cgroup v1 cpu or v2 cpu.max)"
else
  echo $$ > "$cg/cgroup.procs"
  out=$("$gate" doctor -c runas.yaml --no-attach --run-as nobody 2>&1)
  if grep -Eq '^  warn  cpu_quota +0.20 CPU \(20000 us per 100000 us' <<<"$out" && grep -q 'gate can run here' <<<"$out"; then
    pass "doctor names the quota (0.20 CPU)"
  else
    fail "doctor names the quota" "$out"
  fi
  out=$("$gate" run -c runas.yaml --no-build --run-as nobody --out "$work/q.json" 2>&1); rc=$?
  line=$(grep -o "the cgroup's CPU quota held the workload back in [^:]*" <<<"$out")
  echo "  quota 0.2 CPU: exit $rc; $line"
  if [[ $rc -eq 0 && -n $line ]] && python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r['runs'][0].get('throttled_periods',0)>0 else 1)" "$work/q.json"; then
    pass "a throttled run is named, and recorded (throttled_periods)"
  else
    fail "a throttled run is named" "$out"
  fi
  echo $$ > "$(dirname "$cg")/cgroup.procs"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
