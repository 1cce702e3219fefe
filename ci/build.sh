#!/usr/bin/env bash
# Configures and builds gate (and its tests) in $GATE_BUILD (default: ./build).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cmake -S "$GATE_ROOT" -B "$GATE_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$GATE_BUILD" -j"$(nproc)"
