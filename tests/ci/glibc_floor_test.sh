#!/usr/bin/env bash
# The self-contained gate (ci/build-static.sh) runs on glibc 2.31 (Debian 11, Ubuntu 20.04):
#   1. its newest GLIBC_ symbol version is <= 2.31 (it has none: glibc is linked in, cmake/static.cmake),
#      and it asks for no shared library and no program interpreter;
#   2. in a Debian 11 (bullseye) chroot, made with debootstrap from the machine's own Debian mirror
#      (ci/debian-mirror.sh) and kept in /var/cache/gate/chroot-bullseye for the next run (~100 s to
#      make, once), whose glibc is checked to be 2.31: `gate doctor -c` with the shop's config (its
#      trial attach included) passes, and `gate ab` of the shop (built as a static Go binary, the same
#      build both sides) measures and exits 0.
# Usage: glibc_floor_test.sh [--symbols-only]   (--symbols-only: part 1 alone, a second: the default
# tier's ci_glibc_symbols; the whole test, ci_glibc_floor, is in the long tier)
# Env: GATE_ROOT, GATE_STATIC_BIN (default build/static/gate), GATE_BULLSEYE_CHROOT.
# Exit 77 (skipped, loudly) when not root or when the static binary was not built (ci/test.sh builds it).
set -uo pipefail
: "${GATE_ROOT:?}"
source "$GATE_ROOT/ci/env.sh"
source "$GATE_ROOT/ci/debian-mirror.sh"
gate="${GATE_STATIC_BIN:-$GATE_ROOT/build/static/gate}"
root="${GATE_BULLSEYE_CHROOT:-/var/cache/gate/chroot-bullseye}"
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: glibc_floor_test needs root (debootstrap, chroot, BPF)"; exit 77; fi
if [[ ! -x $gate ]]; then echo "SKIP: $gate missing: run ci/build-static.sh first (ci/test.sh does)"; exit 77; fi
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
t0=$(date +%s)

# 1. The symbols.
newest=$( (objdump -T "$gate" 2>/dev/null || true) | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -n1)
if [[ -z $newest ]] || printf '%s\n%s\n' "${newest#GLIBC_}" 2.31 | sort -V -C; then
  ok "newest GLIBC symbol version: ${newest:-none (no dynamic symbols: statically linked)} <= 2.31"
else bad "newest GLIBC symbol version $newest > 2.31: the binary will not run on Debian 11 / Ubuntu 20.04"; fi
needed=$(readelf -d "$gate" 2>/dev/null | grep -c '(NEEDED)')
interp=$(readelf -l "$gate" 2>/dev/null | grep -c 'Requesting program interpreter')
[[ $needed -eq 0 && $interp -eq 0 ]] && ok "no NEEDED library, no program interpreter ($(file -b "$gate" | cut -d, -f1-4))" ||
  bad "the binary needs $needed shared libraries and $interp interpreter"

if [[ ${1:-} == --symbols-only ]]; then
  echo "$passed passed, $failed failed (symbols only; the Debian 11 chroot is ci_glibc_floor's, in the long tier)"
  [[ $failed -eq 0 ]]; exit
fi

# 2. The chroot (made once, atomically: a half-made one is never used).
command -v debootstrap >/dev/null || { bad "no debootstrap (ci/setup.sh installs it)"; echo "$passed passed, $failed failed"; exit 1; }
command -v go >/dev/null || { bad "no Go toolchain (ci/setup.sh installs it)"; echo "$passed passed, $failed failed"; exit 1; }
if [[ ! -x $root/usr/bin/env ]]; then
  mirror=$(debian_mirror bookworm) || { bad "no Debian mirror in the apt sources (ci/debian-mirror.sh)"; exit 1; }
  mkdir -p "$(dirname "$root")"
  part=$(mktemp -d "$root.part.XXXXXX")
  echo "debootstrap bullseye into $root from the machine's mirror (once; ~100 s)"
  if debootstrap --variant=minbase bullseye "$part" "$mirror" > "$part.log" 2>&1; then
    mv "$part" "$root" && rm -f "$part.log"
  else
    bad "debootstrap bullseye failed: $(tail -n3 "$part.log")"; rm -rf "$part"; echo "$passed passed, $failed failed"; exit 1
  fi
fi
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' > "$root/etc/hosts"
libc=$(chroot "$root" /usr/bin/ldd --version 2>/dev/null | head -n1)
[[ $libc == *" 2.31" ]] && ok "the chroot is Debian $(cat "$root/etc/debian_version") with glibc 2.31 ($libc)" ||
  bad "the chroot's glibc is not 2.31: $libc"

work="$root/opt/gate-test"
rm -rf "$work" && mkdir -p "$work/shop/bin"
cleanup() { umount -l "$root/proc" "$root/sys" "$root/dev" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cp "$gate" "$work/gate"
(cd "$GATE_ROOT/examples/shop" && CGO_ENABLED=0 go build -o "$work/shop/bin/shop" ./cmd/shop) || { bad "go build of examples/shop"; exit 1; }
# The example's config with a shorter workload, no build step (no Go in the chroot).
sed -e '/^build:/d' -e 's|^workload: .*|workload: bin/shop -orders 200 -q|' "$GATE_ROOT/examples/shop/gate.yaml" > "$work/shop/gate.yaml"
mount --bind /proc "$root/proc" && mount --rbind /sys "$root/sys" && mount --rbind /dev "$root/dev" || { bad "bind mounts refused"; exit 1; }
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

out=$(in_root /opt/gate-test/gate doctor -c /opt/gate-test/shop/gate.yaml 2>&1); rc=$?
sed 's/^/    /' <<<"$out"
[[ $rc -eq 0 ]] && grep -q '^gate can run here' <<<"$out" && grep -q '^  ok    attach' <<<"$out" &&
  ok "gate doctor -c passes in the Debian 11 chroot (trial attach included)" || bad "gate doctor in the chroot: exit $rc"
t1=$(date +%s)
out=$(in_root /opt/gate-test/gate ab -c /opt/gate-test/shop/gate.yaml --base-binary /opt/gate-test/shop/bin/shop \
        --head-binary /opt/gate-test/shop/bin/shop --runs 5 --max-runs 5 2>&1); rc=$?
grep -E '^gate: ' <<<"$out" | sed 's/^/    /'
[[ $rc -eq 0 ]] && grep -Eq '^gate: .*\([0-9]+ functions, ([0-9]+ base / [0-9]+ head runs|[0-9]+ runs a side)' <<<"$out" &&
  ok "gate ab of the shop in the Debian 11 chroot: exit 0 in $(( $(date +%s) - t1 )) s" ||
  { bad "gate ab in the chroot: exit $rc"; sed 's/^/    /' <<<"$out" | tail -n 20; }

echo "glibc_floor_test: $(( $(date +%s) - t0 )) s"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
