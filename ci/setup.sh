#!/usr/bin/env bash
# Installs everything gate needs on Debian 12 (bookworm), as root: compilers, libraries, the
# BPF toolchain and Go toolchains (1.19 from bookworm, 1.21-1.23 from bookworm-backports, 1.24-1.27
# unpacked from trixie/trixie-backports/sid into /opt/gate-go by ci/fetch-go.sh, not installed).
# Idempotent and quick when done: safe to run on every CI job.
# Usage: ci/setup.sh [--no-backports | --build-only]
#   --no-backports: Go 1.19 only;  --build-only: only what CMake requires to build gate itself
#   (GATE_BUILD_TESTS=OFF: what the CI templates use), no Go, no test tools.
set -euo pipefail

want_backports=1 build_only=0
case "${1:-}" in
  --no-backports) want_backports=0 ;;
  --build-only) want_backports=0 build_only=1 ;;
esac

if [[ $(id -u) -ne 0 ]]; then
  echo "ci/setup.sh: must run as root (it installs Debian packages); re-run with sudo" >&2
  exit 2
fi

export DEBIAN_FRONTEND=noninteractive

# debian_mirror: the machine's own Debian mirror (no host name is written into the repository).
source "$(dirname "$0")/debian-mirror.sh"

# bookworm-backports from the machine's own mirror.
add_backports() {
  if grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
    return 0
  fi
  local uri
  uri=$(debian_mirror bookworm) || true
  if [[ -z "$uri" ]]; then
    echo "ci/setup.sh: cannot find the bookworm mirror in /etc/apt/sources.list{,.d/debian.sources};" >&2
    echo "  add a 'bookworm-backports' suite by hand or run with --no-backports (only Go 1.19 then)" >&2
    return 1
  fi
  echo "ci/setup.sh: adding bookworm-backports from $uri"
  cat > /etc/apt/sources.list.d/gate-backports.sources <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
}

# Exactly CMake's requirements for gate (tests/ci/check_templates.py compares them); DWARF: libdw.
build_pkgs=(
  build-essential cmake pkg-config git
  clang bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev
  libcapstone-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev libyaml-cpp-dev
  libsqlite3-dev libpq-dev   # gate history: the SQLite file (default) and PostgreSQL back ends
)
# The test suite's: GoogleTest, benchmarks, the fuzzer's runtime, Go, report and template checks.
test_pkgs=(
  llvm libclang-rt-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  golang-go python3 python3-scipy
  libxml2-utils chromium python3-yaml jq python3-jsonschema   # report tests: xmllint (JUnit XSD), headless Chromium (HTML), CI template checks; jq: the help examples (ci_examples); jsonschema: baselines/schema.json
  postgresql   # history tests: a private cluster made with its initdb and pg_ctl
)
test_pkgs+=(debootstrap)   # issue 41: the Debian 11 chroot of tests/ci/glibc_floor_test.sh
test_pkgs+=(ninja-build)   # issue 40: ci/build.sh and ci/build-static.sh build with Ninja when it is there
# issue 55: gate in a real container (tests/ci/podman_test.sh): podman with runc (crun refuses this
# machine kind's hybrid cgroups).
test_pkgs+=(podman runc)
pkgs=("${build_pkgs[@]}")
[[ $build_only -eq 0 ]] && pkgs+=("${test_pkgs[@]}")

stamp=/var/lib/gate-setup.stamp
want="$(printf '%s\n' "${pkgs[@]}" | sort | tr '\n' ' ') bp=$want_backports"
if [[ -f $stamp && "$(cat $stamp)" == "$want" ]] && dpkg -s "${pkgs[@]}" >/dev/null 2>&1; then
  echo "ci/setup.sh: packages already installed"
else
  if [[ $want_backports -eq 1 ]]; then add_backports || want_backports=0; fi
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null
  if [[ $want_backports -eq 1 ]]; then
    apt-get install -y -q --no-install-recommends -t bookworm-backports \
      golang-1.21-go golang-1.22-go golang-1.23-go >/dev/null || \
      echo "ci/setup.sh: WARNING: Go 1.21-1.23 from bookworm-backports could not be installed; only Go 1.19 tests will run" >&2
  fi
  echo "$want" > $stamp
fi

for v in 1.19 1.21 1.22 1.23; do
  d=/usr/lib/go-$v/bin/go
  [[ -x $d ]] && echo "ci/setup.sh: Go $v at $d"
done

# issue 41: the template validators, from npm, pinned (tests/ci/install_validator.sh): the workflow
# schema validator (@action-validator/cli) for ci_workflows; gitlab-ci-local (GitLab's CI schema) and
# npm-groovy-lint (Jenkinsfiles; CodeNarc needs Java >= 17) for ci_templates_validate.
if [[ $build_only -eq 0 ]]; then
  command -v npm >/dev/null || { apt-get update -q >/dev/null; apt-get install -y -q --no-install-recommends nodejs npm >/dev/null; }
  java -version >/dev/null 2>&1 || { apt-get update -q >/dev/null; apt-get install -y -q --no-install-recommends openjdk-17-jre-headless >/dev/null; } ||
    echo "ci/setup.sh: WARNING: Java could not be installed: ci_templates_validate will fail and say why" >&2
  for v in action gitlab jenkins; do
    bash "$(dirname "$0")/../tests/ci/install_validator.sh" "$v" >/dev/null ||
      echo "ci/setup.sh: WARNING: the $v template validator could not be installed: ci_workflows / ci_templates_validate will fail and say why" >&2
  done
fi

# Go 1.24-1.27: another suite's packages, so unpacked into a private prefix (tests find them there).
if [[ $want_backports -eq 1 ]]; then
  if mirror=$(debian_mirror bookworm); then
    "$(dirname "$0")/fetch-go.sh" "$mirror" /opt/gate-go 1.24 1.25 1.26 1.27
  else
    echo "ci/setup.sh: WARNING: no bookworm mirror in the apt sources: Go 1.24-1.27 not fetched; their tests will not run" >&2
  fi
fi
exit 0
