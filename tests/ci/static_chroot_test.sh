#!/usr/bin/env bash
# The self-contained gate (ci/build-static.sh) measures the shop example inside an empty chroot that
# holds only: the gate file, the glibc files it needs (from its own ldd), /bin/sh (gate runs the
# workload through sh -c when its command has shell syntax; dash needs only libc), the shop built
# as a static Go binary, /tmp, /dev/null (the workload's stdin) and /proc, /sys bound in. Passes when `gate run` and `gate ab` count calls of the declared functions.
# Env: GATE_STATIC_BIN (default build/static/gate), GATE_ROOT. Exit 77 (skipped, loudly) when not
# root or the static binary was not built.
set -uo pipefail
source "$GATE_ROOT/ci/env.sh"
gate="${GATE_STATIC_BIN:-$GATE_ROOT/build/static/gate}"
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: static_chroot_test needs root (chroot, bind mounts, BPF)"; exit 77; fi
if [[ ! -x $gate ]]; then echo "SKIP: $gate missing: run ci/build-static.sh first"; exit 77; fi
command -v go >/dev/null || { echo "FAIL: no Go toolchain (ci/setup.sh installs it)"; exit 1; }

root=$(mktemp -d /tmp/gate-chroot-XXXXXX)
cleanup() { umount -l "$root/proc" "$root/sys" 2>/dev/null; rm -rf --one-file-system "$root"; }
trap cleanup EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,shop/bin} && chmod 1777 "$root/tmp"
mknod -m 666 "$root/dev/null" c 1 3
cp "$gate" "$root/gate"
sh=$(readlink -f /bin/sh)
cp "$sh" "$root/bin/sh"
# The loader and libraries of gate and sh, at the paths they are asked for.
for f in "$gate" "$sh"; do
  ldd "$f" | grep -oE '/[^ ]+' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
  done
done
(cd "$GATE_ROOT/examples/shop" && CGO_ENABLED=0 go build -o "$root/shop/bin/shop" ./cmd/shop) || { echo "FAIL: go build of examples/shop"; exit 1; }
# The example's config without its build step (no Go in the chroot) nor its adaptive extra runs.
grep -vE '^(build|max_runs):' "$GATE_ROOT/examples/shop/gate.yaml" > "$root/shop/gate.yaml"
mount --bind /proc "$root/proc" && mount --rbind /sys "$root/sys" || { echo "FAIL: bind mounts refused"; exit 1; }
echo "chroot holds: $(cd "$root" && find . -path ./proc -prune -o -path ./sys -prune -o \( -type f -o -type c \) -print | sort | tr '\n' ' ')"

failed=0
t0=$(date +%s.%N)
chroot "$root" /gate doctor -c /shop/gate.yaml || { echo "FAIL: gate doctor in the chroot"; failed=1; }
chroot "$root" /gate run -c /shop/gate.yaml --runs 2 --out /shop/run.json || { echo "FAIL: gate run in the chroot"; failed=1; }
chroot "$root" /gate ab -c /shop/gate.yaml --base-binary /shop/bin/shop --head-binary /shop/bin/shop --runs 3 \
  || { echo "FAIL: gate ab in the chroot (same binary both sides: expected exit 0)"; failed=1; }
printf 'chroot: doctor + run + ab in %.0f s\n' "$(echo "$(date +%s.%N) - $t0" | bc)"
python3 - "$root/shop/run.json" <<'PY' || failed=1
import json, sys
r = json.load(open(sys.argv[1]))
calls = {}
for run in r.get("runs", []):  # per run, columns: functions.id[i] made functions.calls[i] calls
    cols = run["functions"]
    for i, c in zip(cols["id"], cols["calls"]):
        calls[i] = calls.get(i, 0) + c
names = {f["id"]: f["name"] for f in r["functions"]}
counted = {names[i]: c for i, c in calls.items() if c > 0}
print(f"gate run in the chroot: {len(counted)} of {len(names)} functions called, {sum(counted.values())} calls")
for n, c in sorted(counted.items())[:6]: print(f"  {n}: {c}")
sys.exit(0 if counted else 1)
PY
[[ $failed -eq 0 ]] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
