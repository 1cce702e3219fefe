#!/usr/bin/env bash
# Installs one of the template validators the test suite uses, pinned, from the npm registry (npm's
# configured default) into a private npm prefix, once: ci/setup.sh calls it for each, and so do the
# tests on a machine where one is missing. Prints the validator's path.
# Usage: install_validator.sh [action|gitlab|jenkins]   (default: action)
#   action:  @action-validator/cli (+ its @action-validator/core): GitHub workflows and actions
#            against SchemaStore's schemas (tests/ci/workflows_test.sh).
#   gitlab:  gitlab-ci-local: expands include:/extends: and validates the result against GitLab's own
#            CI JSON schema (the one GitLab's pipeline editor uses), offline (tests/ci/templates_validate_test.sh).
#            4.64.1 is the newest that runs on Node 20 (4.65+ is one bundle that needs Node 22).
#   jenkins: npm-groovy-lint (CodeNarc, run by the JRE): parses a Jenkinsfile as Groovy and applies its
#            Jenkinsfile rules, offline. 16.2.0 is the newest for Node 20 (17+ needs Node 22); it needs
#            Java >= 17 (ci/setup.sh installs openjdk-17-jre-headless).
# Env: GATE_NPM_PREFIX (default /var/cache/gate/npm when root, else ~/.cache/gate/npm); action is
# installed in it, gitlab and jenkins in its subfolders of those names (their dependencies differ).
# Exit 1 with the reason (no npm, Node or Java too old, the registry refused) when it cannot be installed.
set -euo pipefail
tool="${1:-action}"
if [[ $(id -u) -eq 0 ]]; then prefix="${GATE_NPM_PREFIX:-/var/cache/gate/npm}"; else prefix="${GATE_NPM_PREFIX:-$HOME/.cache/gate/npm}"; fi
node_min=18
case "$tool" in
  action) pkg=@action-validator/cli version=0.6.0 extra=("@action-validator/core@0.6.0") cmd=action-validator ;;
  gitlab) pkg=gitlab-ci-local version=4.64.1 extra=() cmd=gitlab-ci-local prefix="$prefix/gitlab" ;;
  jenkins) pkg=npm-groovy-lint version=16.2.0 extra=() cmd=npm-groovy-lint prefix="$prefix/jenkins" node_min=20 ;;
  *) echo "install_validator: error: unknown validator '$tool': use action, gitlab or jenkins" >&2; exit 2 ;;
esac
me="install_validator($tool)"
bin="$prefix/node_modules/.bin/$cmd"
have=$(cd "$prefix" 2>/dev/null && node -p "require('./node_modules/$pkg/package.json').version" 2>/dev/null || true)
if [[ $tool == jenkins ]]; then
  # CodeNarc runs in a JVM; without one, npm-groovy-lint would try to download a JRE at run time.
  jv=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
  [[ -n $jv && $jv -ge 17 ]] || { echo "$me: error: npm-groovy-lint needs Java >= 17 (found: ${jv:-none}): apt-get install openjdk-17-jre-headless (ci/setup.sh does)" >&2; exit 1; }
fi
if [[ -x $bin && $have == "$version" ]]; then echo "$bin"; exit 0; fi
command -v npm >/dev/null || { echo "$me: error: npm is not installed: apt-get install npm (Debian's nodejs and npm), then re-run" >&2; exit 1; }
nv=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[[ $nv -ge $node_min ]] || { echo "$me: error: $pkg@$version needs Node >= $node_min, this machine has $(node --version 2>/dev/null || echo none)" >&2; exit 1; }
mkdir -p "$prefix"
echo "$me: npm install $pkg@$version into $prefix" >&2
if ! npm install --no-audit --no-fund --no-save --prefix "$prefix" "$pkg@$version" "${extra[@]}" >&2; then
  echo "$me: error: npm could not install $pkg@$version (its message above): the npm registry must be reachable" >&2
  exit 1
fi
[[ -x $bin ]] || { echo "$me: error: $bin missing after npm install" >&2; exit 1; }
echo "$bin"
