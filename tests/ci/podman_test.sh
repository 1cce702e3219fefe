#!/usr/bin/env bash
# gate in a real container (issue 55): podman from Debian's packages runs a root filesystem this
# test makes (tests/ci/container_rootfs.sh: gate, /bin/sh, the shop, its configs) in three setups:
#   privileged                    gate doctor says "gate can run here" naming the PID namespace, and
#                                 gate run counts the shop's calls (the same as on the host);
#   --cap-add BPF --cap-add PERFMON --cpus 1, with the default seccomp profile (doctor's seccomp
#                                 line fails with its fix, on podman 4.3), with seccomp=unconfined and
#                                 with SYS_ADMIN added: the same as privileged, naming the 1-CPU quota;
#   without CAP_BPF               doctor names CAP_BPF with the --cap-add line; gate run exits 3 with
#                                 the same fix, never "timed no call".
# On this machine kind podman needs `--runtime runc` (crun refuses its hybrid cgroups) and ulimits
# within the hard ones. The verdicts (ab exit 1 on the 1.3x head, A/A exit 0) and wall times are
# tests/bench/containers_lab.sh's, recorded in tests/bench/results/.
# Env: GATE_BIN (or GATE_STATIC_BIN), GATE_ROOT. Exit 77 (skipped, saying why) when not root;
# exit 1 when podman is missing or cannot start a container here (ci/setup.sh installs it).
set -uo pipefail
source "$GATE_ROOT/ci/env.sh"
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: podman_test needs root (rootful podman, BPF)"; exit 77; fi
for t in podman runc go python3; do
  command -v $t >/dev/null || { echo "FAIL: $t missing: ci/setup.sh installs podman and runc (issue 55)"; exit 1; }
done
source "$GATE_ROOT/tests/ci/container_rootfs.sh"
gate=$(readlink -f "${GATE_STATIC_BIN:-$GATE_BIN}")
work=$(mktemp -d /tmp/gate-podman-XXXXXX)
trap 'rm -rf --one-file-system "$work"' EXIT
root="$work/rootfs"
make_rootfs "$root" "$gate" || { echo "FAIL: making the root filesystem"; exit 1; }
sed -i 's/^workload: bin\/shop -orders 2000/workload: bin\/shop -orders 300/; /^max_runs:/d' "$root/shop/gate.yaml"
echo "rootfs: $(du -sh "$root" | cut -f1), $(find "$root" -type f | wc -l) files"
pod=(podman --runtime runc run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=4096:4096)
# Can a container start here at all? If not, say why (loudly): the namespace cases of
# tests/ci/pid_namespace_test.sh still test the feature.
if ! out=$("${pod[@]}" --rootfs "$root" /bin/sh -c 'echo up' 2>&1) || [[ $out != *up* ]]; then
  echo "FAIL: podman cannot start a container on this machine:"; sed 's/^/    /' <<<"$out"; exit 1
fi

# The host's calls, for comparison.
(cd "$root/shop" && "$gate" run -c gate.yaml --runs 1 -q --out "$work/host.json" >/dev/null 2>&1) ||
  { echo "FAIL: gate run on the host"; exit 1; }
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; [[ -n ${2:-} ]] && sed 's/^/    /' <<<"$2"; }

setup() {  # NAME ARGS...: doctor and gate run in a container started with ARGS
  local name=$1; shift
  local t0=$SECONDS out rc
  out=$("${pod[@]}" "$@" --rootfs "$root" /bin/sh -c 'cd /shop && gate doctor -c gate.yaml && gate run -c gate.yaml --runs 1 -q --out /shop/run.json' 2>&1)
  rc=$?
  echo "  $name: exit $rc in $((SECONDS - t0)) s"
  grep -E '^  (ok|warn|fail) +(pid_namespace|capabilities|seccomp|cpu_quota|follow|run_as) ' <<<"$out" | sed 's/^/  /'
  DOCTOR=$out RC=$rc
}

setup privileged --privileged
if [[ $RC -eq 0 ]] && grep -q 'gate can run here' <<<"$DOCTOR" && grep -Eq 'pid_namespace +[0-9]+ \(not the host' <<<"$DOCTOR" &&
  grep -Eq '^  ok    follow ' <<<"$DOCTOR" && python3 "$GATE_ROOT/tests/ci/calls_of.py" "$work/host.json" "$root/shop/run.json" >/dev/null; then
  pass "privileged: gate can run here, names the namespace; same calls as on the host"
else
  fail "privileged" "$DOCTOR"
fi
rm -f "$root/shop/run.json"

# Capabilities only, with a CPU quota. With the engine's default seccomp profile, BPF and PERFMON
# may not be enough: podman 4.3's profile (Debian 12) lets bpf() and perf_event_open through only
# with CAP_SYS_ADMIN. Either gate runs, or doctor's seccomp line fails with its fix (never another
# line, never a run that measured nothing); then the two fixes it names must each work.
caps=(--cap-add BPF --cap-add PERFMON)
setup "--cap-add BPF,PERFMON --cpus 1" "${caps[@]}" --cpus 1
if [[ $RC -eq 0 ]] && grep -q 'gate can run here' <<<"$DOCTOR"; then
  pass "capabilities BPF, PERFMON with the default seccomp profile: gate can run here"
elif grep -Eq '^  fail  seccomp +filter on; bpf\(\) refused' <<<"$DOCTOR" && grep -q 'seccomp=unconfined' <<<"$DOCTOR" &&
  grep -Eq '^  ok    capabilities +CAP_BPF yes, CAP_PERFMON yes' <<<"$DOCTOR" &&
  ! grep -Eq '^  fail  (privileges|capabilities|pid_namespace) ' <<<"$DOCTOR"; then
  run=$("${pod[@]}" "${caps[@]}" --cpus 1 --rootfs "$root" /bin/sh -c 'cd /shop && gate run -c gate.yaml --runs 1 -q' 2>&1); rrc=$?
  if [[ $rrc -eq 3 ]] && grep -q 'seccomp=unconfined' <<<"$run" && ! grep -q 'timed no call' <<<"$run"; then
    pass "capabilities BPF, PERFMON with the default seccomp profile: doctor and gate run (exit 3) name the seccomp filter and its fix"
  else
    fail "capabilities BPF, PERFMON with the default seccomp profile: gate run exit $rrc" "$run"
  fi
else
  fail "capabilities BPF, PERFMON with the default seccomp profile (exit $RC)" "$DOCTOR"
fi
rm -f "$root/shop/run.json"
for extra in "--security-opt seccomp=unconfined" "--cap-add SYS_ADMIN"; do
  setup "--cap-add BPF,PERFMON $extra --cpus 1" "${caps[@]}" $extra --cpus 1
  if [[ $RC -eq 0 ]] && grep -q 'gate can run here' <<<"$DOCTOR" && grep -Eq 'cpu_quota +1.00 CPU' <<<"$DOCTOR" &&
    grep -Eq 'pid_namespace +[0-9]+ \(not the host' <<<"$DOCTOR" && grep -Eq '^  ok    follow ' <<<"$DOCTOR" &&
    python3 "$GATE_ROOT/tests/ci/calls_of.py" "$work/host.json" "$root/shop/run.json" >/dev/null; then
    pass "capabilities BPF, PERFMON, $extra, --cpus 1: gate can run here, names the namespace and the quota; the host's calls"
  else
    fail "capabilities BPF, PERFMON, $extra, --cpus 1 (exit $RC)" "$DOCTOR"
  fi
  rm -f "$root/shop/run.json"
done

# Per-probe links (kernels without uprobe_multi; --attach-mode perf_event here) with BPF and PERFMON
# only: Linux 6.18 refuses those perf-event uprobes without CAP_SYS_ADMIN. Either they attach and
# count, or gate run exits 3 naming SYS_ADMIN (never "timed no call", never "rebuilt").
run=$("${pod[@]}" "${caps[@]}" --security-opt seccomp=unconfined --rootfs "$root" /bin/sh -c \
  'cd /shop && gate run -c gate.yaml --runs 1 -q --attach-mode perf_event --out /shop/run.json' 2>&1); rrc=$?
if [[ $rrc -eq 0 ]] && python3 "$GATE_ROOT/tests/ci/calls_of.py" "$work/host.json" "$root/shop/run.json" >/dev/null; then
  pass "per-probe links with BPF, PERFMON: attached, the host's calls"
elif [[ $rrc -eq 3 ]] && grep -q 'add --cap-add SYS_ADMIN' <<<"$run" && ! grep -qE 'timed no call|rebuilt' <<<"$run"; then
  pass "per-probe links with BPF, PERFMON: refused by this kernel, exit 3 naming --cap-add SYS_ADMIN"
else
  fail "per-probe links with BPF, PERFMON (exit $rrc)" "$run"
fi
rm -f "$root/shop/run.json"

# Without CAP_BPF: named, with the --cap-add line, by doctor and by gate run (exit 3 both).
t0=$SECONDS
doc=$("${pod[@]}" --cap-add PERFMON --rootfs "$root" /bin/sh -c 'cd /shop && gate doctor -c gate.yaml' 2>&1); drc=$?
run=$("${pod[@]}" --cap-add PERFMON --rootfs "$root" /bin/sh -c 'cd /shop && gate run -c gate.yaml --runs 1 -q' 2>&1); rrc=$?
echo "  no CAP_BPF: doctor exit $drc, gate run exit $rrc in $((SECONDS - t0)) s"
fix=$(grep -o 'fix: gate needs CAP_BPF[^`]*`--cap-add BPF --cap-add PERFMON`' <<<"$doc" | head -1)
if [[ $drc -eq 3 && $rrc -eq 3 && -n $fix ]] && grep -Eq '^  fail  capabilities +CAP_BPF no' <<<"$doc" &&
  grep -q 'gate needs CAP_BPF.*--cap-add BPF --cap-add PERFMON' <<<"$run" && ! grep -q 'timed no call' <<<"$run"; then
  pass "no CAP_BPF: doctor and gate run exit 3 naming CAP_BPF and --cap-add BPF --cap-add PERFMON"
else
  fail "no CAP_BPF (doctor exit $drc, run exit $rrc)" "$doc
$run"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
