#!/usr/bin/env bash
# Installs the workflow schema validator the test suite uses (npm's @action-validator/cli, pinned,
# with its @action-validator/core) into a private npm prefix, once: ci/setup.sh calls it, and so
# does tests/ci/workflows_test.sh on a machine where it is missing. Prints the validator's path.
# Env: GATE_NPM_PREFIX (default /var/cache/gate/npm when root, else ~/.cache/gate/npm).
# Exit 1 with the reason (no npm, the registry refused) when it cannot be installed.
set -euo pipefail
version=0.6.0
if [[ $(id -u) -eq 0 ]]; then prefix="${GATE_NPM_PREFIX:-/var/cache/gate/npm}"; else prefix="${GATE_NPM_PREFIX:-$HOME/.cache/gate/npm}"; fi
bin="$prefix/node_modules/.bin/action-validator"
have=$(cd "$prefix" 2>/dev/null && node -p 'require("./node_modules/@action-validator/cli/package.json").version' 2>/dev/null || true)
if [[ -x $bin && $have == "$version" ]]; then echo "$bin"; exit 0; fi
command -v npm >/dev/null || { echo "install_validator: error: npm is not installed: apt-get install npm (Debian's nodejs and npm), then re-run" >&2; exit 1; }
mkdir -p "$prefix"
echo "install_validator: npm install @action-validator/cli@$version into $prefix" >&2
if ! npm install --no-audit --no-fund --no-save --prefix "$prefix" "@action-validator/cli@$version" "@action-validator/core@$version" >&2; then
  echo "install_validator: error: npm could not install @action-validator/cli@$version (its message above): the npm registry must be reachable" >&2
  exit 1
fi
[[ -x $bin ]] || { echo "install_validator: error: $bin missing after npm install" >&2; exit 1; }
echo "$bin"
