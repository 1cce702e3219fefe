#!/usr/bin/env bash
# Gives a CI job the self-contained gate without building it on the runner: prints the path of a
# gate executable on stdout (progress and errors on stderr). Used by the GitHub action, the GitLab
# template and the Jenkinsfiles, which download this script from the release (a release asset of
# its own, in SHA256SUMS) when they are not the action. A release's or a source build's gate has its
# helper scripts beside it, in ci/ (pre-merge.sh, comment.py, get-gate.sh): the templates run those,
# never a checkout of gate's source. In order:
#   1. GATE_BINARY set: that file (a path), or downloaded once into the cache (an http(s) URL;
#      checked against GATE_BINARY_SHA256 when set);
#   2. a version (--version V or GATE_VERSION, e.g. v0.2.0) and GATE_RELEASE_URL (the release's
#      download folder): the cache's gate-vV when it is there; else gate-V-linux-amd64.tar.gz and
#      SHA256SUMS are downloaded, the tarball's SHA256 must match its line in SHA256SUMS (else it is
#      refused: exit 4), and its folder (gate, ci/) is kept in the cache. Only when the release has no such asset
#      (HTTP 404) does it go on to 3, saying so; any other download failure is an error (exit 4);
#   3. the cache holds gate-<source hash>: that one (the hash covers every file the build reads);
#   4. else ci/build-static.sh runs inside a debian:12 container (docker or podman) on a copy of
#      gate's source, and the result is kept in the cache as gate-src-<source hash>/ (gate, ci/);
#      with --here (a job that already runs in a debian:12 image, as the GitLab template's does)
#      it runs in the job's own container instead. Never installs anything on the host runner.
# Usage: ci/get-gate.sh [--version V] [--here | --hash]   (--hash: print the source hash only)
# Env:   GATE_BINARY, GATE_BINARY_SHA256, GATE_VERSION, GATE_RELEASE_URL, GATE_CACHE_DIR (default
#        ~/.cache/gate), GATE_CONTAINER (docker or podman; default: whichever is installed),
#        GATE_IMAGE (debian:12), GATE_NO_BUILD=1 (fail instead of building from source)
# Exit:  0 (path printed), 2 (usage, nothing to get), 3 (the build failed), 4 (a download failed or
#        did not verify)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
cache="${GATE_CACHE_DIR:-${HOME:-/root}/.cache/gate}"
image="${GATE_IMAGE:-debian:12}"
version="${GATE_VERSION:-}"
here=0 only_hash=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --here) here=1; shift ;;
    --hash) only_hash=1; shift ;;
    --version) version="${2:?--version needs a version, e.g. v0.2.0}"; shift 2 ;;
    *) echo "get-gate: error: unknown argument '$1'" >&2; echo "  fix: ci/get-gate.sh [--version V] [--here | --hash]" >&2; exit 2 ;;
  esac
done
version="${version#v}"
say() { echo "get-gate: $*" >&2; }
# die CODE WHAT CAUSE FIX
die() { echo "get-gate: error: $2: $3" >&2; echo "  fix: $4" >&2; exit "$1"; }
mkdir -p "$cache"

# fetch URL FILE: 0 done, 44 not found (HTTP 404), else failed (curl's message on stderr).
fetch() {
  local code
  if command -v curl >/dev/null; then
    code=$(curl -sSL --retry 2 -o "$2" -w '%{http_code}' "$1") || { rm -f "$2"; return 1; }
    [[ $code == 404 ]] && { rm -f "$2"; return 44; }
    [[ $code == 2?? ]] || { say "$1: HTTP $code"; rm -f "$2"; return 1; }
  elif command -v wget >/dev/null; then
    local out
    out=$(wget -q -S -O "$2" "$1" 2>&1) && return 0
    rm -f "$2"; grep -q ' 404 ' <<<"$out" && return 44; say "$1: $(tail -n1 <<<"$out")"; return 1
  else
    die 2 "cannot download $1" "neither curl nor wget is installed" "install curl on the runner, or give GATE_BINARY a path"
  fi
}

if [[ -n "${GATE_BINARY:-}" && $only_hash -eq 0 ]]; then
  case "$GATE_BINARY" in
    http://*|https://*)
      dest="$cache/gate-url-$(printf '%s' "$GATE_BINARY" | sha256sum | cut -c1-16)"
      if [[ ! -x $dest ]]; then
        say "downloading $GATE_BINARY"
        rc=0; fetch "$GATE_BINARY" "$dest.part" || rc=$?
        [[ $rc -eq 0 ]] || die 4 "cannot download $GATE_BINARY" "$([[ $rc -eq 44 ]] && echo "HTTP 404, no such file" || echo "the download failed (above)")" \
          "check the URL in GATE_BINARY / the gate-binary input, or give a path"
        if [[ -n "${GATE_BINARY_SHA256:-}" ]]; then
          got=$(sha256sum "$dest.part" | cut -d' ' -f1)
          [[ $got == "$GATE_BINARY_SHA256" ]] || { rm -f "$dest.part"; die 4 "$GATE_BINARY refused" \
            "its SHA256 is $got, GATE_BINARY_SHA256 says $GATE_BINARY_SHA256 (altered or truncated)" "download it again or correct GATE_BINARY_SHA256"; }
        fi
        chmod +x "$dest.part" && mv "$dest.part" "$dest"
      fi
      echo "$dest"; exit 0 ;;
    *)
      [[ -x $GATE_BINARY ]] || die 2 "$GATE_BINARY" "not an executable file" "give the path of build/static/gate (ci/build-static.sh) or of a release's gate"
      readlink -f "$GATE_BINARY"; exit 0 ;;
  esac
fi

# A release: gate-V-linux-amd64.tar.gz verified against the release's SHA256SUMS.
if [[ -n "$version" && $only_hash -eq 0 ]]; then
  [[ -n "${GATE_RELEASE_URL:-}" ]] || die 2 "gate $version" "GATE_RELEASE_URL is not set: no release to download from" \
    "set it to the release's download folder (https://SERVER/OWNER/gate/releases/download/v$version)"
  [[ "$(uname -m)" == x86_64 ]] || die 2 "gate $version" "releases are built for x86-64 (amd64), this is $(uname -m)" "run on an x86-64 runner"
  name="gate-$version-linux-amd64"
  bin="$cache/$name/gate"
  if [[ -x $bin ]]; then say "cached $bin (release $version)"; echo "$bin"; exit 0; fi
  url="${GATE_RELEASE_URL%/}"
  work=$(mktemp -d "$cache/release-XXXXXX")
  trap 'rm -rf "$work"' EXIT
  say "downloading $url/$name.tar.gz"
  rc=0; fetch "$url/$name.tar.gz" "$work/$name.tar.gz" || rc=$?
  if [[ $rc -eq 0 ]]; then
    rc=0; fetch "$url/SHA256SUMS" "$work/SHA256SUMS" || rc=$?
    [[ $rc -eq 0 ]] || die 4 "release $version has $name.tar.gz but its SHA256SUMS could not be downloaded" \
      "$([[ $rc -eq 44 ]] && echo "HTTP 404 at $url/SHA256SUMS" || echo "the download failed (above)")" \
      "re-run the job; an unverifiable binary is never used (or give GATE_BINARY a path)"
    want=$(awk -v f="$name.tar.gz" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS" | head -n1)
    [[ -n $want ]] || die 4 "release $version's SHA256SUMS" "it has no line for $name.tar.gz" "the release is incomplete: use another version"
    got=$(sha256sum "$work/$name.tar.gz" | cut -d' ' -f1)
    if [[ $got != "$want" ]]; then
      die 4 "$name.tar.gz from $url refused" "its SHA256 is $got but the release's SHA256SUMS says $want: it was altered or truncated on the way" \
        "re-run the job; if it persists, the release's assets are not what was published: pin another version or give GATE_BINARY a path"
    fi
    say "verified $name.tar.gz (SHA256 $got)"
    # The whole folder: gate and the helper scripts the templates run (ci/pre-merge.sh, ci/comment.py).
    tar -C "$work" -xzf "$work/$name.tar.gz" "$name" && [[ -f "$work/$name/gate" ]] ||
      die 4 "$name.tar.gz" "it holds no $name/gate" "the release is malformed: use another version"
    "$work/$name/gate" --version >/dev/null 2>&1 ||
      die 4 "the gate of $name.tar.gz" "it does not run here ($("$work/$name/gate" --version 2>&1 | head -n1))" "run on x86-64 Linux, or give GATE_BINARY"
    chmod +x "$work/$name/gate" && rm -rf "${cache:?}/$name" && mv "$work/$name" "$cache/$name"
    say "installed $bin (release $version)"
    echo "$bin"; exit 0
  fi
  [[ $rc -eq 44 ]] || die 4 "cannot download gate $version from $url" "the download failed (above)" \
    "re-run the job (a network error), check GATE_RELEASE_URL / the version, or give GATE_BINARY a path"
  [[ "${GATE_NO_BUILD:-}" != 1 ]] || die 2 "gate $version" "the release has no $name.tar.gz (HTTP 404) and GATE_NO_BUILD=1" \
    "use a version with release assets, or allow the build from source"
  say "release $version has no $name.tar.gz (HTTP 404 at $url): building gate from this source instead"
  rm -rf "$work"; trap - EXIT
fi

[[ -f $src/CMakeLists.txt && -d $src/gate ]] || die 2 "no gate to give" \
  "no GATE_BINARY, no release version, and $src holds no gate source to build from" \
  "set GATE_VERSION (a release tag such as v0.2.0) and GATE_RELEASE_URL, or GATE_BINARY"
# Everything ci/build-static.sh reads: the sources, the build files and the scripts.
hash=$(cd "$src" && find CMakeLists.txt cmake bpf gate ci/build-static.sh ci/setup.sh ci/debian-mirror.sh ci/env.sh \
         -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
[[ $only_hash -eq 1 ]] && { echo "$hash"; exit 0; }
bin="$cache/gate-src-$hash/gate"
if [[ -x $bin ]]; then say "cached $bin (gate source $hash)"; echo "$bin"; exit 0; fi

[[ "${GATE_NO_BUILD:-}" != 1 ]] || die 2 "gate source $hash" "not in the cache, and GATE_NO_BUILD=1 forbids building it" \
  "give GATE_BINARY or a release version, or allow the build"
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
# The helper scripts of this source beside it, as a release has them.
mkdir -p "$work/out/ci/github"
cp "$work/build/static/gate" "$work/out/gate"
cp "$src/ci/get-gate.sh" "$src/ci/pre-merge.sh" "$src/ci/comment.py" "$work/out/ci/"
cp "$src/ci/github/action.yml" "$work/out/ci/github/"
rm -rf "$cache/gate-src-$hash" && mv "$work/out" "$cache/gate-src-$hash"
say "built $bin"
echo "$bin"
