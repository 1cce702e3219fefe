#!/usr/bin/env bash
# Configures and builds gate (and its tests) in $GATE_BUILD (default: ./build).
# Ninja when installed (ci/setup.sh installs ninja-build with the test packages): a source compiles
# as soon as its own headers exist, where Make first waits for every library its target links
# (docs/development.md, "Suite time"). A build folder configured earlier keeps its generator.
set -euo pipefail
source "$(dirname "$0")/env.sh"
gen=()
if command -v ninja >/dev/null && ! grep -qs '^CMAKE_GENERATOR:INTERNAL=' "$GATE_BUILD/CMakeCache.txt"; then
  gen=(-G Ninja)
fi
cmake "${gen[@]}" -S "$GATE_ROOT" -B "$GATE_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$GATE_BUILD" -j"$(nproc)"
