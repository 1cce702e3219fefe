#!/usr/bin/env bash
# Puts current Go toolchains (1.24-1.27, from Debian trixie / trixie-backports / sid) into a private
# prefix, never into the system: `apt-get download` + `dpkg -x` with a throw-away apt configuration.
# Usage (root): ci/fetch-go.sh MIRROR_URI [PREFIX] [VERSIONS...]; called by ci/setup.sh.
set -euo pipefail

mirror="${1:?usage: fetch-go.sh MIRROR_URI [PREFIX] [VERSIONS...]}"
prefix="${2:-/opt/gate-go}"
shift $(( $# >= 2 ? 2 : 1 ))
versions=("$@")
[[ ${#versions[@]} -eq 0 ]] && versions=(1.24 1.25 1.26 1.27)

# A toolchain counts as installed when its go command runs and reports its own version: a
# half-unpacked prefix (interrupted run) is redone, never trusted.
go_of() { echo "$prefix/$1/usr/lib/go-$1/bin/go"; }
installed() { GOTOOLCHAIN=local "$(go_of "$1")" version 2>/dev/null | grep -q "go$1"; }

missing=()
for v in "${versions[@]}"; do installed "$v" || missing+=("$v"); done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "ci/fetch-go.sh: Go ${versions[*]} already in $prefix"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/prefs.d" "$work/debs"
# Only this apt configuration's own lists and sources: the system's apt state is not touched.
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/none"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
          -o "Dir::Etc::Preferences=$work/none" -o "Dir::Etc::PreferencesParts=$work/prefs.d"
          -o "APT::Sandbox::User=root" -o "Acquire::Languages=none")
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# trixie-backports carries the newest 1.25-1.27; sid is read only for versions not found there.
fetch_from() {
  local suites=("$@") s
  : > "$work/sources.list"
  for s in "${suites[@]}"; do echo "deb [signed-by=$keyring] $mirror $s main" >> "$work/sources.list"; done
  if ! apt-get "${apt_opts[@]}" update -q >"$work/update.log" 2>&1; then
    echo "ci/fetch-go.sh: WARNING: apt-get update for ${suites[*]} failed:" >&2
    sed 's/^/  /' "$work/update.log" >&2
    return 0
  fi
  local still=() v
  for v in "${missing[@]}"; do
    if (cd "$work/debs" && apt-get "${apt_opts[@]}" download -q "golang-$v-go" "golang-$v-src" >"$work/dl.log" 2>&1); then
      unpack "$v"
    else
      still+=("$v")
    fi
  done
  missing=("${still[@]+"${still[@]}"}")
}

# Unpacks into PREFIX/V.new, checks it runs, then renames: an interrupted run leaves no half toolchain.
unpack() {
  local v="$1" tmp="$prefix/$1.new" deb
  rm -rf "$tmp"
  mkdir -p "$tmp"
  for deb in "$work"/debs/golang-"$v"-go_*.deb "$work"/debs/golang-"$v"-src_*.deb; do dpkg -x "$deb" "$tmp"; done
  rm -f "$work"/debs/*.deb
  if ! GOTOOLCHAIN=local "$tmp/usr/lib/go-$v/bin/go" version >/dev/null 2>&1; then
    echo "ci/fetch-go.sh: WARNING: Go $v unpacked but its go command does not run; removed" >&2
    rm -rf "$tmp"
    return 0
  fi
  rm -rf "${prefix:?}/$v"
  mv "$tmp" "$prefix/$v"
  echo "ci/fetch-go.sh: Go $v at $(go_of "$v") ($(GOTOOLCHAIN=local "$(go_of "$v")" version))"
}

fetch_from trixie trixie-backports
[[ ${#missing[@]} -gt 0 ]] && fetch_from sid
if [[ ${#missing[@]} -gt 0 ]]; then
  # Loud but not fatal: the build works without them; only their go1.XX tests will not exist.
  echo "ci/fetch-go.sh: WARNING: ********************************************************" >&2
  echo "ci/fetch-go.sh: WARNING: Go ${missing[*]} not found in trixie, trixie-backports or sid at $mirror" >&2
  echo "ci/fetch-go.sh: WARNING: the tests for those versions will not run. Check the mirror, or" >&2
  echo "ci/fetch-go.sh: WARNING: unpack golang-1.XX-go and golang-1.XX-src into $prefix/1.XX by hand." >&2
  echo "ci/fetch-go.sh: WARNING: ********************************************************" >&2
fi
exit 0
