#!/usr/bin/env bash
# ci/get-gate.sh against a local HTTP server (python3 -m http.server, its request log kept) laid out
# like a release's download folder: /acme/gate/releases/download/vVERSION/{gate-VERSION-linux-amd64.tar.gz,
# SHA256SUMS}, the tarball packed as ci/build-static.sh --dist packs it (gate: $GATE_BIN).
#   1. a release: downloaded, its SHA256 checked against SHA256SUMS, the gate in the cache runs, its
#      helper scripts beside it (ci/pre-merge.sh: what the templates run instead of a checkout of gate);
#   2. the same version again: the cache, no request reaches the server;
#   3. a tampered tarball (bytes changed after SHA256SUMS was written): refused, exit 4, the error
#      names the file, the cause (the two checksums) and the fix; nothing is cached;
#   4. a version without assets (HTTP 404): falls back to the source build (a stub docker stands
#      for the debian:12 container: it records its call and leaves the stub gate), saying so;
#   5. the server unreachable: exit 4, no build (a network error is not "no asset").
# Env: GATE_ROOT, GATE_BIN.
set -uo pipefail
: "${GATE_ROOT:?}" "${GATE_BIN:?}"
get="$GATE_ROOT/ci/get-gate.sh"
tmp=$(mktemp -d /tmp/gate-get-gate-test.XXXXXX)
srv_pid=
cleanup() { [[ -n $srv_pid ]] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# The release folders: v0.1.0 sound, v0.2.0 tampered, v0.9.0 absent.
www="$tmp/www"
pack() {  # pack VERSION: the tarball and SHA256SUMS of release vVERSION
  local v=$1 d="$www/acme/gate/releases/download/v$1" n="gate-$1-linux-amd64"
  mkdir -p "$d/$n/ci"
  strip -o "$d/$n/gate" "$GATE_BIN"   # a build tree's gate carries ~100 MB of debug info: not in a release
  cp "$GATE_ROOT/ci/get-gate.sh" "$GATE_ROOT/ci/pre-merge.sh" "$GATE_ROOT/ci/comment.py" "$d/$n/ci/"
  tar -C "$d" --owner=0 --group=0 -czf "$d/$n.tar.gz" "$n" && rm -rf "${d:?}/$n"
  (cd "$d" && sha256sum "$n.tar.gz" > SHA256SUMS)
}
pack 0.1.0
pack 0.2.0
printf 'tampered' >> "$www/acme/gate/releases/download/v0.2.0/gate-0.2.0-linux-amd64.tar.gz"

# Port 0: the server binds a free port itself and says which ("Serving HTTP on 127.0.0.1 port N"); a
# port picked first and bound later can be taken meanwhile by a test running beside this one.
python3 -u -m http.server --bind 127.0.0.1 --directory "$www" 0 2> "$tmp/requests.log" > "$tmp/serving" &
srv_pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/.* port \([0-9][0-9]*\) .*/\1/p' "$tmp/serving")
  [[ -n $port ]] && curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 0.1
done
[[ -n $port ]] || { echo "FAIL: the local HTTP server did not start: $(cat "$tmp/serving" "$tmp/requests.log")"; exit 1; }
base="http://127.0.0.1:$port/acme/gate/releases/download"
requests() { grep -c '"GET ' "$tmp/requests.log"; }

# A stub container engine, as in run_templates.py: leaves build/static/gate in the mounted source.
mkdir -p "$tmp/bin"
cat > "$tmp/bin/docker" <<SH
#!/usr/bin/env bash
echo "\$*" >> "$tmp/docker-calls"
prev=
for a in "\$@"; do
  if [ "\$prev" = -v ] && [ "\${a#*:}" = /src ]; then mkdir -p "\${a%%:*}/build/static" && cp "$GATE_BIN" "\${a%%:*}/build/static/gate"; fi
  prev="\$a"
done
SH
chmod +x "$tmp/bin/docker"
export PATH="$tmp/bin:$PATH" GATE_CACHE_DIR="$tmp/cache"
unset GATE_BINARY GATE_NO_BUILD

# 1. a sound release
out=$(GATE_VERSION=v0.1.0 GATE_RELEASE_URL="$base/v0.1.0" "$get" 2> "$tmp/err"); rc=$?
if [[ $rc -eq 0 && $out == "$tmp/cache/gate-0.1.0-linux-amd64/gate" && -x $out && -x $(dirname "$out")/ci/pre-merge.sh ]] &&
   "$out" --version >/dev/null &&
   grep -q 'verified gate-0.1.0-linux-amd64.tar.gz' "$tmp/err" &&
   grep -q 'GET /acme/gate/releases/download/v0.1.0/gate-0.1.0-linux-amd64.tar.gz' "$tmp/requests.log" &&
   grep -q 'GET /acme/gate/releases/download/v0.1.0/SHA256SUMS' "$tmp/requests.log"; then
  ok "release v0.1.0 downloaded, verified against SHA256SUMS, runs ($("$out" --version)), its ci/ scripts beside it"
else bad "release v0.1.0 (exit $rc, printed '$out'): $(cat "$tmp/err")"; fi

# 2. the cache on the second call
n=$(requests)
out2=$(GATE_VERSION=0.1.0 GATE_RELEASE_URL="$base/v0.1.0" "$get" 2> "$tmp/err"); rc=$?
if [[ $rc -eq 0 && $out2 == "$out" && $(requests) -eq $n ]] && grep -q 'cached' "$tmp/err"; then
  ok "second call: the cached gate, no request to the server ($n requests in all)"
else bad "second call (exit $rc, $(requests) requests, was $n): $(cat "$tmp/err")"; fi

# 3. a tampered tarball
out=$(GATE_VERSION=v0.2.0 GATE_RELEASE_URL="$base/v0.2.0" "$get" 2> "$tmp/err"); rc=$?
if [[ $rc -eq 4 && -z $out && ! -e $tmp/cache/gate-0.2.0-linux-amd64 ]] &&
   grep -q 'get-gate: error: gate-0.2.0-linux-amd64.tar.gz from .* refused: its SHA256 is [0-9a-f]\{64\} but the release.s SHA256SUMS says [0-9a-f]\{64\}' "$tmp/err" &&
   grep -q '  fix: ' "$tmp/err"; then
  ok "tampered tarball refused (exit 4): $(grep -m1 "error:" "$tmp/err" | cut -c1-150)..."
else bad "tampered tarball (exit $rc, printed '$out'): $(cat "$tmp/err")"; fi
[[ -z $(ls "$tmp/cache" | grep -v '^gate-0.1.0-linux-amd64$') ]] && ok "nothing left in the cache by the refused download" ||
  bad "the refused download left files: $(ls "$tmp/cache")"

# 4. no asset: the source build (stub container), said so
out=$(GATE_VERSION=v0.9.0 GATE_RELEASE_URL="$base/v0.9.0" "$get" 2> "$tmp/err"); rc=$?
hash=$("$get" --hash)
if [[ $rc -eq 0 && $out == "$tmp/cache/gate-src-$hash/gate" && -x $tmp/cache/gate-src-$hash/ci/pre-merge.sh &&
      $(wc -l < "$tmp/docker-calls" 2>/dev/null) -eq 1 ]] &&
   grep -q 'release 0.9.0 has no gate-0.9.0-linux-amd64.tar.gz (HTTP 404' "$tmp/err"; then
  ok "no release asset: built from source in a debian:12 container, and said so"
else bad "no release asset (exit $rc, printed '$out', container calls: $(cat "$tmp/docker-calls" 2>/dev/null)): $(cat "$tmp/err")"; fi
out=$(GATE_NO_BUILD=1 GATE_VERSION=v0.9.0 GATE_RELEASE_URL="$base/v0.9.0" GATE_CACHE_DIR="$tmp/cache2" "$get" 2> "$tmp/err"); rc=$?
[[ $rc -eq 2 ]] && grep -q 'GATE_NO_BUILD=1' "$tmp/err" && ok "GATE_NO_BUILD=1: no asset is an error, not a build" ||
  bad "GATE_NO_BUILD=1 (exit $rc): $(cat "$tmp/err")"

# 5. the server unreachable: an error, not a build
kill "$srv_pid"; wait "$srv_pid" 2>/dev/null; srv_pid=
calls=$(wc -l < "$tmp/docker-calls")
out=$(GATE_VERSION=v0.3.0 GATE_RELEASE_URL="$base/v0.3.0" "$get" 2> "$tmp/err"); rc=$?
if [[ $rc -eq 4 && $(wc -l < "$tmp/docker-calls") -eq $calls ]] && grep -q 'fix: re-run the job' "$tmp/err"; then
  ok "server unreachable: exit 4, no build"
else bad "server unreachable (exit $rc): $(cat "$tmp/err")"; fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
