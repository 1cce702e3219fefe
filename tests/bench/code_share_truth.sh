#!/bin/bash
# main.hot: gate's cpu/call and p50 window against the thread clock (ratio.sh), on Go 1.19 and the newest.
root=$(cd "$(dirname "$0")/../.." && pwd)
GATE=${GATE:-$root/build/gate/cli/gate}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
for go in /usr/lib/go-1.19/bin/go $(ls -d /opt/gate-go/*/usr/lib/go-*/bin/go | sort -V | tail -1); do
  echo "== $($go version | awk '{print $3}')"
  bash $root/tests/go/hotloop/ratio.sh $go 2>&1 | grep -E "run [135]:|median"
  rm -rf src && cp -r $root/tests/go/hotloop src && (cd src && GOTOOLCHAIN=local GOFLAGS=-mod=mod $go build -o ../bin .)
  sed "s|binary: .*|binary: $work/bin|" $root/tests/go/hotloop/gate.yaml > g.yaml
  $GATE run -c g.yaml --runs 3 -q 2>/dev/null | grep -E "^function|main.hot "
done
