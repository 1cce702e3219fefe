#!/usr/bin/env bash
# Builds build/static/gate: one executable that loads no shared library (glibc is linked in too:
# cmake/static.cmake says why). libbpf, libelf/libdw with zlib/lzma/bz2, Capstone, yaml-cpp, simdjson and libstdc++ are
# linked in and the BPF object is embedded, so the file runs on any x86-64 Linux >= 5.15 whatever
# its glibc (docs/install.md). The same script runs on a Debian 12 machine and in a debian:12 container.
# Debian's libsimdjson-dev ships no libsimdjson.a: simdjson is compiled from Debian's own source
# package (its amalgamated singleheader/simdjson.cpp), fetched with apt-get source from the
# machine's own mirror through a private apt folder (the system's apt sources are not changed).
# Usage: ci/build-static.sh [--deb | --dist]  (as root: installs the build packages; else they must be there)
#   --deb: also build/static/gate_<version>_amd64.deb (CPack): /usr/bin/gate, the CI templates,
#   get-gate.sh, pre-merge.sh and comment.py in /usr/share/gate/ci, depending on nothing (glibc is linked in).
#   --dist: also the release assets in build/static/dist: gate-VERSION-linux-amd64.tar.gz (gate and
#   the helper scripts the templates run, in ci/), the .deb, get-gate.sh and gate.gitlab-ci.yml alone
#   (what the GitLab and Jenkins templates fetch first) and SHA256SUMS over all of them. VERSION is
#   CMakeLists.txt's, the one home of the version; $GATE_RELEASE_VERSION (the release's tag, e.g.
#   v0.2.0) must equal it, else the script refuses.
# Env:   GATE_STATIC_BUILD (default: build/static)
set -euo pipefail
here="$(dirname "$0")"
source "$here/env.sh"
source "$here/debian-mirror.sh"
out="${GATE_STATIC_BUILD:-$GATE_ROOT/build/static}"
want_deb=0 want_dist=0
case "${1:-}" in
  --deb) want_deb=1 ;;
  --dist) want_deb=1 want_dist=1 ;;
  "") ;;
  *) echo "ci/build-static.sh: unknown argument '$1': use --deb, --dist or nothing" >&2; exit 2 ;;
esac
mkdir -p "$out"
t0=$(date +%s)

# 1. Packages: gate's build packages, and the archives of libdw's compression libraries.
static_pkgs=(liblzma-dev libbz2-dev libzstd-dev dpkg-dev file)
if [[ $(id -u) -eq 0 ]]; then
  "$here/setup.sh" --build-only
  if ! dpkg -s "${static_pkgs[@]}" >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${static_pkgs[@]}" >/dev/null
  fi
elif ! dpkg -s "${static_pkgs[@]}" >/dev/null 2>&1; then
  echo "ci/build-static.sh: not root and packages are missing: run it as root once, or apt-get install ${static_pkgs[*]}" >&2
  exit 2
fi

# 2. simdjson's source, the version this release's libsimdjson-dev is built from.
src="$out/simdjson-src"
if ! compgen -G "$src/simdjson-*/singleheader/simdjson.cpp" >/dev/null; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  mirror=$(debian_mirror "$codename") || {
    echo "ci/build-static.sh: no Debian mirror for '$codename' in /etc/apt/sources.list{,.d/debian.sources}:" >&2
    echo "  simdjson's source package cannot be fetched; add the release's 'deb' line to the apt sources" >&2
    exit 2
  }
  apt_dir="$out/apt-src"
  rm -rf "$src" "$apt_dir" && mkdir -p "$src" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename main" > "$apt_dir/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root -q)
  echo "ci/build-static.sh: fetching Debian's simdjson source ($codename) from the machine's mirror"
  apt-get "${apt_opts[@]}" update >/dev/null
  # Verified against the signed Sources index, unpacked (with Debian's patches) by dpkg-source.
  (cd "$src" && apt-get "${apt_opts[@]}" source simdjson >/dev/null)
fi
amalgamation=$(dirname "$(compgen -G "$src/simdjson-*/singleheader/simdjson.cpp" | head -n1)")
echo "ci/build-static.sh: simdjson from $(basename "$(dirname "$amalgamation")")"

# 3. Configure and build the gate executable alone (no tests), Release, stripped into build/static.
#    A unity build (as ci/test.sh's: docs/development.md, "Suite time"); Ninja when installed and
#    the tree is new.
gen=()
if command -v ninja >/dev/null && ! grep -qs '^CMAKE_GENERATOR:INTERNAL=' "$out/tree/CMakeCache.txt"; then
  gen=(-G Ninja)
fi
cmake "${gen[@]}" -S "$GATE_ROOT" -B "$out/tree" -DCMAKE_BUILD_TYPE=Release -DGATE_STATIC=ON -DGATE_BUILD_TESTS=OFF \
      -DCMAKE_UNITY_BUILD=ON -DGATE_SIMDJSON_SOURCE="$amalgamation" >/dev/null
cmake --build "$out/tree" --target gate -j"$(nproc)"
strip -o "$out/gate" "$out/tree/gate/cli/gate"

# 4. Check the promise: no shared library at all (glibc linked in, cmake/static.cmake), so no
#    GLIBC_ symbol version either; with -DGATE_STATIC_GLIBC=OFF: glibc's own libraries only.
needed=$(readelf -d "$out/gate" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
extra=$(tr ' ' '\n' <<<"$needed" | grep -vE '^(libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2|)$' || true)
if [[ -n "$extra" ]]; then
  echo "ci/build-static.sh: FAIL: $out/gate needs shared libraries outside glibc: $extra" >&2
  echo "  a -dev package lacks its .a, or a target was not re-pointed in cmake/static.cmake" >&2
  exit 1
fi
# The newest GLIBC_ symbol version the file asks of the host: the glibc floor ("none" when static).
glibc=$( (objdump -T "$out/gate" 2>/dev/null || true) | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1 || true)
floor="${glibc#GLIBC_}"
echo "ci/build-static.sh: $out/gate: $(du -h "$out/gate" | cut -f1), needs: ${needed:-no shared library (statically linked)}; newest glibc symbol: ${glibc:-none}; $(( $(date +%s) - t0 )) s"

if [[ $want_deb -eq 1 ]]; then
  # The package's libc6 dependency is the floor just measured (none: no dependency).
  cmake "$out/tree" -DGATE_GLIBC_FLOOR="$floor" >/dev/null
  (cd "$out/tree" && cpack -G DEB -B "$out/deb" >/dev/null)
  deb=$(ls -t "$out"/deb/gate_*.deb | head -n1)
  cp "$deb" "$out/"
  echo "ci/build-static.sh: $out/$(basename "$deb"): depends on '$(dpkg-deb -f "$deb" Depends)'"
fi

if [[ $want_dist -eq 1 ]]; then
  # The release assets (.github/workflows/release.yml publishes them; ci/get-gate.sh downloads
  # them): gate-VERSION-linux-amd64.tar.gz (one folder: gate, and the ci/ scripts the templates
  # call), the .deb, and SHA256SUMS over both.
  version=$(sed -n 's/^project(gate VERSION \([0-9.]*\).*/\1/p' "$GATE_ROOT/CMakeLists.txt")
  if [[ -n "${GATE_RELEASE_VERSION:-}" && "${GATE_RELEASE_VERSION#v}" != "$version" ]]; then
    echo "ci/build-static.sh: FAIL: the release is $GATE_RELEASE_VERSION but CMakeLists.txt says $version (what gate --version prints)" >&2
    echo "  fix: ci/set-version.sh ${GATE_RELEASE_VERSION#v}, commit, and tag that commit" >&2
    exit 2
  fi
  dist="$out/dist" name="gate-$version-linux-amd64"
  rm -rf "$dist" && mkdir -p "$dist/$name/ci/github"
  cp "$out/gate" "$dist/$name/gate"
  cp "$GATE_ROOT/ci/get-gate.sh" "$GATE_ROOT/ci/pre-merge.sh" "$GATE_ROOT/ci/comment.py" "$dist/$name/ci/"
  cp "$GATE_ROOT/ci/github/action.yml" "$dist/$name/ci/github/"
  tar -C "$dist" --owner=0 --group=0 --sort=name -czf "$dist/$name.tar.gz" "$name"
  rm -rf "${dist:?}/$name"
  deb="$out/gate_${version}_amd64.deb"
  [[ -f "$deb" ]] || { echo "ci/build-static.sh: FAIL: CPack wrote no $deb: the .deb's name does not follow CMakeLists.txt's version" >&2; exit 1; }
  cp "$deb" "$dist/"
  cp "$GATE_ROOT/ci/get-gate.sh" "$GATE_ROOT/ci/gitlab/gate.gitlab-ci.yml" "$dist/"
  (cd "$dist" && sha256sum "$name.tar.gz" "gate_${version}_amd64.deb" get-gate.sh gate.gitlab-ci.yml > SHA256SUMS)
  echo "ci/build-static.sh: release assets in $dist:"; (cd "$dist" && ls -l | sed 's/^/  /')
fi
