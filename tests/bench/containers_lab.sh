#!/usr/bin/env bash
# Issue 55's acceptance in a real container, recorded: podman (Debian's, --runtime runc) runs a root
# filesystem made here (tests/ci/container_rootfs.sh: gate, /bin/sh, the shop base and the demo's
# head, whose pricing.Apply is 1.3x slower through SHOP_SLOW) in two setups, privileged and
# capability-only with --cpus 1. In each: gate doctor (must say "gate can run here", naming the
# PID namespace and the quota), gate ab base vs head (must exit 1 with Apply flagged) and the A/A
# base vs base (must exit 0), TRIES times each, with wall times. The full examples/shop/gate.yaml
# (orders 2000, runs 5, max_runs 10). Output: the commands, exit codes, wall times and the reports'
# summary lines; tests/bench/results/containers_lab.txt holds a recorded run (docs/ci.md cites it).
# The capability setup adds --security-opt seccomp=unconfined: podman 4.3's default profile (Debian
# 12) lets bpf() through only with CAP_SYS_ADMIN (tests/ci/podman_test.sh shows both).
# Usage: sudo tests/bench/containers_lab.sh [TRIES]   (GATE_BIN: the gate to put in the container;
# SETUPS: some of "host privileged caps", default all three)
set -uo pipefail
GATE_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$GATE_ROOT/ci/env.sh"
source "$GATE_ROOT/tests/ci/container_rootfs.sh"
tries=${1:-1}
gate=$(readlink -f "${GATE_BIN:-$GATE_ROOT/build/gate/cli/gate}")
[[ $(id -u) -eq 0 ]] || { echo "containers_lab: run as root (rootful podman, BPF)"; exit 2; }
work=$(mktemp -d /tmp/gate-containers-lab-XXXXXX)
trap 'rm -rf --one-file-system "$work"' EXIT
root="$work/rootfs"
make_rootfs "$root" "$gate" 'example.com/shop/pricing.Apply=1.3' || { echo "making the root filesystem failed"; exit 1; }
pod=(podman --runtime runc run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=4096:4096)
echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); podman $(podman --version | cut -d' ' -f3), runc $(runc --version | head -1 | cut -d' ' -f3)"
echo "# gate: $gate ($(git -C "$GATE_ROOT" rev-parse --short HEAD 2>/dev/null))"

in_setup() {  # CMD: in the setup's container (args), or on the host (args empty: a VM runner)
  if [[ ${#args[@]} -eq 0 ]]; then (cd "$root/shop" && PATH="$root/bin:$PATH" /bin/sh -c "$1"); else "${pod[@]}" "${args[@]}" --rootfs "$root" /bin/sh -c "$1"; fi
}

lab() {  # SETUP_NAME PODMAN_ARGS...
  local name=$1; shift
  if [[ $# -eq 0 ]]; then echo; echo "## $name: on the host, as root (a VM runner)"; else
    echo; echo "## $name: podman --runtime runc run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 $* --rootfs ROOT"; fi
  in_setup 'cd /shop 2>/dev/null; gate doctor -c gate.yaml --no-attach' 2>&1 |
    grep -E '^  (ok|warn|fail) +(pid_namespace|capabilities|seccomp|cpu_quota|run_as)|gate can' | sed 's/^/  /'
  for t in $(seq 1 "$tries"); do
    for pair in "head bin/shop-head 1" "A/A bin/shop 0"; do
      set -- $pair
      local label=$1 headbin=$2 want=$3 t0=$SECONDS out rc
      out=$(in_setup "cd /shop 2>/dev/null; gate ab -c gate.yaml --base-binary bin/shop --head-binary $headbin -q" 2>&1)
      rc=$?
      local flagged; flagged=$(grep -E '^regression' <<<"$out" | awk '{print $2}' | tr '\n' ' ')
      echo "  try $t $label: exit $rc (want $want) in $((SECONDS - t0)) s; flagged: ${flagged:-none}"
      grep -E '^gate: [0-9]+ regression' <<<"$out" | sed 's/^/    /'
      grep -E '^ *-? ?.*(throttled|quota held)' <<<"$out" | head -2 | sed 's/^/    /'
    done
  done
}
setups=${SETUPS:-host privileged caps}
for s in $setups; do
  case $s in
    host) args=(); lab host ;;
    privileged) args=(--privileged); lab privileged "${args[@]}" ;;
    caps) args=(--cap-add BPF --cap-add PERFMON --security-opt seccomp=unconfined --cpus 1)
      lab "capabilities, --cpus 1" "${args[@]}" ;;
  esac
done
echo; echo "# done $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
