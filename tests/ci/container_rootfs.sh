#!/usr/bin/env bash
# Sourced by tests/ci/podman_test.sh and tests/bench/containers_lab.sh: a minimal root filesystem
# for a container that runs gate on the shop example, made here (no image registry is reachable):
# gate (the static one from ci/build-static.sh, or a dynamically linked one with the libraries its
# ldd names), /bin/sh with its libraries, the shop built static (CGO_ENABLED=0), its two configs
# without their build lines, and /tmp. The container engine adds /proc, /sys and /dev.
# make_rootfs DIR GATE [HEAD_SLOW]: HEAD_SLOW ("example.com/shop/pricing.Apply=1.3") also builds
# /shop/bin/shop-head, whose init sets SHOP_SLOW to it (the demo's head, ci/demo.sh).

copy_with_libs() {  # FILE ROOT: FILE at its path under ROOT, with the loader and libraries it needs
  local f=$1 root=$2
  mkdir -p "$root$(dirname "$f")" && cp -L "$f" "$root$f"
  ldd "$f" 2>/dev/null | grep -oE '/[^ ]+' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
  done
}

make_rootfs() {
  local root=$1 gate=$2 slow=${3:-}
  mkdir -p "$root"/{bin,tmp,proc,sys,dev,shop/bin} && chmod 1777 "$root/tmp"
  cp "$gate" "$root/gate.bin"
  ldd "$gate" 2>/dev/null | grep -oE '/[^ ]+' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
  done
  ln -sf ../gate.bin "$root/bin/gate"  # relative: the same link inside the container and on the host
  local sh; sh=$(readlink -f /bin/sh)
  copy_with_libs "$sh" "$root" && cp -L "$sh" "$root/bin/sh"
  local src="$GATE_ROOT/examples/shop"
  (cd "$src" && CGO_ENABLED=0 go build -o "$root/shop/bin/shop" ./cmd/shop &&
    CGO_ENABLED=0 go build -o "$root/shop/bin/shopd" ./cmd/shopd &&
    CGO_ENABLED=0 go build -o "$root/shop/bin/shopload" ./cmd/shopload) || return 1
  if [[ -n $slow ]]; then
    local head; head=$(mktemp -d /tmp/gate-head-src-XXXXXX)
    tar -C "$src" --exclude=./bin -cf - . | tar -C "$head" -xf -
    printf 'package main\n\nimport "os"\n\n// The head'"'"'s change: %s slower.\nfunc init() { os.Setenv("SHOP_SLOW", "%s") }\n' \
      "$slow" "$slow" > "$head/cmd/shop/zz_slow.go"
    (cd "$head" && CGO_ENABLED=0 go build -o "$root/shop/bin/shop-head" ./cmd/shop) || { rm -rf "$head"; return 1; }
    rm -rf "$head"
  fi
  grep -vE '^build:' "$src/gate.yaml" > "$root/shop/gate.yaml"
  grep -vE '^build:' "$src/gate-service.yaml" > "$root/shop/gate-service.yaml"
}
