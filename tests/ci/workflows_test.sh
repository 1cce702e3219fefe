#!/usr/bin/env bash
# Every GitHub workflow and action file of the repository passes a workflow schema validator
# (npm's @action-validator/cli, installed by tests/ci/install_validator.sh when missing):
# .github/workflows/*.yml (the release), ci/github/action.yml, ci/github/example-workflow.yml and
# ci/github/example-matrix-workflow.yml (the sharded comparison, issue 44).
# A broken copy of each (a step with neither run nor uses; an unknown key) must be refused, so the
# validator is known to be checking. The GitLab template and the Jenkinsfiles are validated by
# tests/ci/templates_validate_test.sh (gitlab-ci-local, npm-groovy-lint).
# Fails (exit 1, with the reason) when the validator cannot be installed: CI must validate.
# Env: GATE_ROOT.
set -uo pipefail
: "${GATE_ROOT:?}"
validator=$(bash "$GATE_ROOT/tests/ci/install_validator.sh") || { echo "FAIL: the workflow validator could not be installed (reason above)"; exit 1; }
tmp=$(mktemp -d /tmp/gate-workflows-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
cd "$GATE_ROOT"
files=(.github/workflows/*.yml ci/github/action.yml ci/github/example-workflow.yml ci/github/example-matrix-workflow.yml)
for f in "${files[@]}"; do
  if out=$("$validator" "$f" 2>&1); then passed=$((passed + 1)); echo "ok: $f passes action-validator"
  else failed=$((failed + 1)); echo "FAIL: $f: $(grep -E '"(detail|title|path)"' <<<"$out" | sort -u | tr -s ' ' | head -n 8 | tr '\n' ' ')"; fi
done
# The validator must refuse broken files: a step with neither run nor uses, a misspelt job key.
sed '0,/^      shell: bash$/s//      shel: bash/' ci/github/action.yml > "$tmp/action.yml"
printf 'name: x\non: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    stepz: [{run: echo}]\n' > "$tmp/workflow.yml"
for f in "$tmp/action.yml" "$tmp/workflow.yml"; do
  if "$validator" "$f" >/dev/null 2>&1; then failed=$((failed + 1)); echo "FAIL: the validator accepted a broken $(basename "$f")"
  else passed=$((passed + 1)); echo "ok: the validator refuses a broken $(basename "$f")"; fi
done
echo "note: ci/gitlab/gate.gitlab-ci.yml and ci/jenkins/Jenkinsfile*: validated by ci_templates_validate (tests/ci/templates_validate_test.sh)"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
