#!/usr/bin/env bash
# The bundled example end to end on a fresh Debian 12 machine, as root: install, build, record a
# baseline of examples/shop, check an unchanged build (passes, exit 0), then check with one
# function made 30% slower through the example's SHOP_SLOW knob (caught, exit 1).
# Usage: sudo ci/demo.sh
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$GATE_ROOT/ci/setup.sh" --no-backports
"$GATE_ROOT/ci/build.sh" -DGATE_BUILD_TESTS=OFF
gate="$GATE_BUILD/gate/cli/gate"
cfg="$GATE_ROOT/examples/shop/gate.yaml"
baseline="$GATE_BUILD/demo/shop-baseline.json"
slow='example.com/shop.(*Cart).Checkout=1.3'

echo; echo "== 1. record a baseline of examples/shop (writes $baseline)"
"$gate" record -c "$cfg" --baseline "$baseline" --force

echo; echo "== 2. check the unchanged program: expect a pass (exit 0)"
set +e
"$gate" check -c "$cfg" --baseline "$baseline" --no-build
rc_same=$?
echo; echo "== 3. check with SHOP_SLOW='$slow': expect a caught regression (exit 1)"
SHOP_SLOW="$slow" "$gate" check -c "$cfg" --baseline "$baseline" --no-build
rc_slow=$?
set -e

echo
echo "demo: unchanged program -> exit $rc_same (expected 0); Checkout 1.3x slower -> exit $rc_slow (expected 1)"
if [[ $rc_same -eq 0 && $rc_slow -eq 1 ]]; then
  echo "demo: OK"
else
  echo "demo: UNEXPECTED RESULT" >&2
  exit 1
fi
