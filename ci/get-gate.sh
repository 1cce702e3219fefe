#!/usr/bin/env bash
# Gives a CI job the self-contained gate without building it on the runner: prints the path of a
# gate executable on stdout (progress on stderr). Used by the GitHub action, the GitLab template
# and the Jenkinsfile. In order:
#   1. GATE_BINARY set: that file (a path), or downloaded once into the cache (an http(s) URL);
#   2. the cache holds gate-<source hash>: that one (the hash covers every file the build reads);
#   3. else ci/build-static.sh runs inside a debian:12 container (docker or podman) on a copy of
#      gate's source, and the result is kept in the cache as gate-<source hash>;
#      with --here (a job that already runs in a debian:12 image, as the GitLab template's does)
#      it runs in the job's own container instead. Never installs anything on the host runner.
# Usage: ci/get-gate.sh [--here | --hash]   (--hash: print the source hash, the cache key, only)   Env: GATE_BINARY, GATE_CACHE_DIR (default ~/.cache/gate),
#        GATE_CONTAINER (docker or podman; default: whichever is installed), GATE_IMAGE (debian:12)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
cache="${GATE_CACHE_DIR:-${HOME:-/root}/.cache/gate}"
image="${GATE_IMAGE:-debian:12}"
here=0 only_hash=0
[[ "${1:-}" == --here ]] && here=1
[[ "${1:-}" == --hash ]] && only_hash=1
say() { echo "get-gate: $*" >&2; }
mkdir -p "$cache"

if [[ -n "${GATE_BINARY:-}" && $only_hash -eq 0 ]]; then
  case "$GATE_BINARY" in
    http://*|https://*)
      dest="$cache/gate-url-$(printf '%s' "$GATE_BINARY" | sha256sum | cut -c1-16)"
      if [[ ! -x $dest ]]; then
        say "downloading $GATE_BINARY"
        if command -v curl >/dev/null; then curl -fsSL -o "$dest.part" "$GATE_BINARY"
        elif command -v wget >/dev/null; then wget -q -O "$dest.part" "$GATE_BINARY"
        else say "neither curl nor wget to download $GATE_BINARY: give a path instead"; exit 2; fi
        chmod +x "$dest.part" && mv "$dest.part" "$dest"
      fi
      echo "$dest"; exit 0 ;;
    *)
      [[ -x $GATE_BINARY ]] || { say "$GATE_BINARY is not an executable file: give the path of build/static/gate (ci/build-static.sh)"; exit 2; }
      readlink -f "$GATE_BINARY"; exit 0 ;;
  esac
fi

# Everything ci/build-static.sh reads: the sources, the build files and the scripts.
hash=$(cd "$src" && find CMakeLists.txt cmake bpf gate ci/build-static.sh ci/setup.sh ci/debian-mirror.sh ci/env.sh \
         -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
[[ $only_hash -eq 1 ]] && { echo "$hash"; exit 0; }
bin="$cache/gate-$hash"
if [[ -x $bin ]]; then say "cached $bin (gate source $hash)"; echo "$bin"; exit 0; fi

work=$(mktemp -d "$cache/build-XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$src" --exclude=./build --exclude=./.git -cf - . | tar -C "$work" -xf -
if [[ $here -eq 1 ]]; then
  . /etc/os-release
  [[ "${VERSION_CODENAME:-}" == bookworm ]] || { say "--here needs a Debian 12 (bookworm) job image, this is ${PRETTY_NAME:-unknown}"; exit 2; }
  say "building gate $hash in this job's container (ci/build-static.sh)"
  bash "$work/ci/build-static.sh" >&2
else
  engine="${GATE_CONTAINER:-}"
  [[ -z $engine ]] && engine=$(command -v docker || command -v podman || true)
  if [[ -z $engine ]]; then
    say "no docker or podman to build gate in a $image container: give a built gate (GATE_BINARY: a path or URL of"
    say "  build/static/gate from ci/build-static.sh), or install a container engine on the runner"
    exit 2
  fi
  say "building gate $hash in a $image container ($engine)"
  # The container's root owns what it writes: hand it back to the runner's user.
  "$engine" run --rm -v "$work:/src" -w /src "$image" \
    bash -c "bash ci/build-static.sh; rc=\$?; chown -R $(id -u):$(id -g) /src; exit \$rc" >&2
fi
[[ -x $work/build/static/gate ]] || { say "the build wrote no build/static/gate (its log is above)"; exit 3; }
mv "$work/build/static/gate" "$bin"
say "built $bin"
echo "$bin"
