#!/usr/bin/env bash
# Builds gate in a fresh Debian chroot, made with debootstrap from the machine's own mirror, to show
# that the build leans on nothing installed here by hand:
#   bookworm: ci/build-static.sh, as a debian:12 container runs it (no Docker engine needed), then
#             the binary's shared libraries;
#   trixie:   gate and its tests against Debian 13's libraries (libbpf 1.5, Capstone 5, simdjson
#             3.12, GCC 14), then the unit tests (ctest -L unit) and the BPF probe and doctor tests.
# The chroot is kept (GATE_CHROOT_DIR, default /var/tmp/gate-chroot-SUITE) so a second run is quick.
# Usage: ci/chroot-check.sh bookworm|trixie   (as root; needs debootstrap: apt-get install debootstrap)
set -euo pipefail
here="$(dirname "$0")"
source "$here/env.sh"
source "$here/debian-mirror.sh"
suite="${1:-}"
case "$suite" in bookworm|trixie) ;; *) echo "usage: ci/chroot-check.sh bookworm|trixie" >&2; exit 2 ;; esac
[[ $(id -u) -eq 0 ]] || { echo "ci/chroot-check.sh: must run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "ci/chroot-check.sh: SKIP: no debootstrap (apt-get install debootstrap)" >&2; exit 77; }
mirror=$(debian_mirror bookworm) || { echo "ci/chroot-check.sh: SKIP: no Debian mirror in the apt sources" >&2; exit 77; }
root="${GATE_CHROOT_DIR:-/var/tmp/gate-chroot-$suite}"
t0=$(date +%s)
if [[ ! -x $root/usr/bin/apt-get ]]; then
  echo "ci/chroot-check.sh: debootstrap $suite into $root from the machine's mirror"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >/dev/null
fi
cleanup() { umount -l "$root/proc" "$root/sys" "$root/dev" 2>/dev/null || true; }
trap cleanup EXIT
mount --bind /proc "$root/proc"; mount --rbind /sys "$root/sys"; mount --rbind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
rm -rf "$root/src" && mkdir -p "$root/src"
tar -C "$GATE_ROOT" --exclude=./build --exclude=./.git -cf - . | tar -C "$root/src" -xf -
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
              DEBIAN_FRONTEND=noninteractive bash -c "$1"; }
if [[ $suite == bookworm ]]; then
  in_root "cd /src && apt-get update -q >/dev/null && bash ci/build-static.sh"
  echo "ci/chroot-check.sh: bookworm: ldd of the chroot's build/static/gate:"
  ldd "$root/src/build/static/gate"
else
  in_root "cd /src && apt-get update -q >/dev/null && bash ci/setup.sh --build-only && \
           apt-get install -y -q --no-install-recommends libgtest-dev libgmock-dev libbenchmark-dev golang-go \
             python3 python3-yaml python3-scipy libxml2-utils chromium >/dev/null && \
           dpkg-query -W -f '\${Package} \${Version}\n' libbpf-dev libcapstone-dev libsimdjson-dev libyaml-cpp-dev g++ && \
           bash ci/build.sh -DGATE_BUILD_TESTS=ON && cd build && ctest -L unit --output-on-failure --timeout 600 && \
           ctest -R '^(probe_go|ci_doctor)' --output-on-failure --timeout 900"
fi
echo "ci/chroot-check.sh: $suite: passed in $(( $(date +%s) - t0 )) s"
