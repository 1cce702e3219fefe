# Sourced by the ci/ scripts: the environment Go and the build need when CI runs with a bare
# environment (HOME may be unset; no network, so the Go toolchain must never try to download).
export HOME="${HOME:-/root}"
export GOTOOLCHAIN=local
export GOPROXY=off
export GOFLAGS=-mod=mod
export GOCACHE="${GOCACHE:-$HOME/.cache/go-build}"
export PATH="/usr/lib/go/bin:$PATH:/usr/sbin:/sbin"
GATE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export GATE_ROOT
GATE_BUILD="${GATE_BUILD:-$GATE_ROOT/build}"
export GATE_BUILD
