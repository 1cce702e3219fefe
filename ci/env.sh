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

# The newest Go toolchain installed (ci/setup.sh: Debian's /usr/lib/go-1.NN and ci/fetch-go.sh's
# /opt/gate-go/1.NN), chosen by version, not by path (/usr/lib sorts after /opt); "" when none.
gate_newest_go() {
  local g
  for g in /opt/gate-go/1.*/usr/lib/go-1.*/bin/go /usr/lib/go-1.*/bin/go; do
    [[ -x "$g" ]] && echo "$(basename "$(dirname "$(dirname "$g")")") $g"
  done | sort -V | tail -n 1 | cut -d' ' -f2
}
