#!/usr/bin/env bash
# Sets gate's version. Its one home is `project(gate VERSION X.Y.Z)` in CMakeLists.txt: `gate
# --version`, the release tarball (gate-X.Y.Z-linux-amd64.tar.gz), the .deb (gate_X.Y.Z_amd64.deb)
# and SHA256SUMS are made from it by the build. The copies this script writes are the ones a file
# must carry itself: the templates' default release (the action's `version` input, so that pinning
# the action by commit SHA downloads the release the action file belongs to; GATE_VERSION of the
# GitLab template and the Jenkinsfiles) and the docs' examples. tests/ci/version_test.py (ctest
# ci_version) fails when any of them disagrees with CMakeLists.txt.
# Usage: ci/set-version.sh X.Y.Z   (then commit, and tag vX.Y.Z: .github/workflows/release.yml)
#        ci/set-version.sh --files  (the files holding a copy, one a line)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Every file that carries the version besides CMakeLists.txt.
files=(ci/github/action.yml ci/github/example-workflow.yml ci/github/example-matrix-workflow.yml
       ci/gitlab/gate.gitlab-ci.yml ci/jenkins/Jenkinsfile ci/jenkins/Jenkinsfile.shards
       docs/ci.md docs/install.md)
if [[ "${1:-}" == --files ]]; then printf '%s\n' "${files[@]}"; exit 0; fi
new="${1:-}"
new="${new#v}"
[[ "$new" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
  echo "set-version: error: '${1:-}' is not a version X.Y.Z" >&2
  echo "  fix: ci/set-version.sh 0.2.0" >&2
  exit 2
}
old=$(sed -n 's/^project(gate VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[[ -n "$old" ]] || { echo "set-version: error: CMakeLists.txt has no 'project(gate VERSION X.Y.Z' line" >&2; exit 2; }
sed -i "s/^project(gate VERSION $old /project(gate VERSION $new /" "$root/CMakeLists.txt"
# The old version as a whole word (not 10.1.0 for 0.1.0), with or without its v.
re="$(sed 's/\./\\./g' <<<"$old")"
for f in "${files[@]}"; do
  perl -pi -e "s/(?<![0-9.])$re(?![0-9])/$new/g" "$root/$f"
done
echo "set-version: $old -> $new in CMakeLists.txt and ${#files[@]} files; run ctest -R ci_version, commit, tag v$new"
