#!/usr/bin/env bash
# The GitLab template and the Jenkinsfiles pass a validator of their CI system that runs offline
# (issue 41; the GitHub files: tests/ci/workflows_test.sh). Both installed from npm, pinned, by
# tests/ci/install_validator.sh (ci/setup.sh does it ahead):
# - ci/gitlab/gate.gitlab-ci.yml: gitlab-ci-local expands a pipeline and validates it against GitLab's
#   own CI JSON schema, and checks needs:/stages itself. Checked twice in a scratch git repository:
#   the template alone as the pipeline file (GitLab's schema leaves hidden jobs unchecked until a job
#   extends them), and the pipeline of its header (include: local, a job
#   extending .gate, the .gate-build/.gate-shard/.gate-merge matrix), whose four jobs a merge-request
#   pipeline must list (rules: resolved).
# - ci/jenkins/Jenkinsfile, Jenkinsfile.shards: npm-groovy-lint parses each as Groovy (CodeNarc) and
#   applies its Jenkinsfile rules; an error fails. The declarative pipeline model itself (section and
#   step names) is checked only by a Jenkins server (its pipeline-model-definition plugin's
#   declarative-linter), which does not install here: tests/ci/check_templates.py checks that structure.
# A broken copy of each (a misspelt `if:` of a rule; an extra brace) must be refused, so each
# validator is known to be checking. Fails (exit 1, with the reason) when a validator cannot be
# installed: CI must validate. Env: GATE_ROOT.
set -uo pipefail
: "${GATE_ROOT:?}"
here="$GATE_ROOT/tests/ci"
gitlab=$(bash "$here/install_validator.sh" gitlab) || { echo "FAIL: the GitLab validator (gitlab-ci-local) could not be installed (reason above)"; echo "0 passed, 1 failed"; exit 1; }
jenkins=$(bash "$here/install_validator.sh" jenkins) || { echo "FAIL: the Jenkins linter (npm-groovy-lint) could not be installed (reason above)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d /tmp/gate-templates-validate.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# --- GitLab ---
tpl="$GATE_ROOT/ci/gitlab/gate.gitlab-ci.yml"
repo="$tmp/gitlab"
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" remote add origin https://gitlab.invalid/team/shop.git   # gitlab-ci-local reads the project path from it
# The template's header example: one ab job and the sharded matrix.
cat > "$repo/consumer.yml" <<'YML'
include:
  - local: gate.gitlab-ci.yml
perf-gate:
  extends: .gate
  image: golang:1.23-bookworm
  variables:
    GATE_CONFIG: gate.yaml
    GATE_VERSION: v0.2.0
    GATE_RELEASE_URL: https://gitlab.invalid/team/gate/releases/download/v0.2.0
perf-build: {extends: .gate-build, variables: {GATE_CONFIG: gate.yaml}}
perf-shard: {extends: .gate-shard, parallel: 3, needs: [perf-build], variables: {GATE_CONFIG: gate.yaml, GATE_RUNS: "30"}}
perf-merge: {extends: .gate-merge, needs: [perf-build, perf-shard], variables: {GATE_CONFIG: gate.yaml}}
YML
# validate TEMPLATE PIPELINE: the template copied in as gate.gitlab-ci.yml, PIPELINE as .gitlab-ci.yml;
# gitlab-ci-local's exit code, its output in $tmp/gitlab.out.
validate() {
  cp "$1" "$repo/gate.gitlab-ci.yml"
  if [[ $2 == template ]]; then cp "$1" "$repo/.gitlab-ci.yml"; else cp "$repo/consumer.yml" "$repo/.gitlab-ci.yml"; fi
  git -C "$repo" add -A
  git -C "$repo" -c user.name=gate -c user.email=gate@localhost commit -q --allow-empty -m pipeline
  (cd "$repo" && "$gitlab" --list --json-schema-validation --variable CI_PIPELINE_SOURCE=merge_request_event \
     --ignore-predefined-vars CI_PIPELINE_SOURCE) > "$tmp/gitlab.out" 2>&1
}
show() { grep -vE 'default remote branch|symbolic-ref|not a symbolic ref|finished in|validated in' "$tmp/gitlab.out" | head -n 12 | sed 's/^/    /'; }
if validate "$tpl" template; then ok "gate.gitlab-ci.yml alone is a valid pipeline file for gitlab-ci-local (its hidden .gate jobs are schema-checked once extended: next)"
else bad "gate.gitlab-ci.yml alone is refused by gitlab-ci-local:"; show; fi
if validate "$tpl" consumer; then
  missing=()
  for job in perf-gate perf-build 'perf-shard: \[1/3\]' 'perf-shard: \[3/3\]' perf-merge; do grep -q "^$job " "$tmp/gitlab.out" || missing+=("$job"); done
  if [[ ${#missing[@]} -eq 0 ]]; then ok "a pipeline including gate.gitlab-ci.yml (.gate and the .gate-build/.gate-shard/.gate-merge matrix) passes it, and a merge request runs its jobs (perf-shard as 3 cells)"
  else bad "a merge-request pipeline including gate.gitlab-ci.yml does not list ${missing[*]} (rules:?):"; show; fi
else bad "a pipeline including gate.gitlab-ci.yml is refused by gitlab-ci-local:"; show; fi
# Broken: a rule's `if:` misspelt `iff:`: the schema must refuse it (its own words name the key).
sed 's/^    - if: \$CI_PIPELINE_SOURCE == "merge_request_event"/    - iff: $CI_PIPELINE_SOURCE == "merge_request_event"/' "$tpl" > "$tmp/broken.gitlab-ci.yml"
if ! grep -q -- '- iff:' "$tmp/broken.gitlab-ci.yml"; then bad "could not make the broken GitLab copy (the template's first rule changed): update this test"
elif validate "$tmp/broken.gitlab-ci.yml" consumer; then bad "gitlab-ci-local accepted a gate.gitlab-ci.yml whose rule says iff:"
elif grep -q "'iff' property is not expected" "$tmp/gitlab.out"; then ok "gitlab-ci-local's schema refuses a broken gate.gitlab-ci.yml (a rule's iff:)"
else bad "gitlab-ci-local refused the broken copy, but not for its iff: key:"; show; fi

# --- Jenkins ---
mkdir -p "$tmp/jenkins"
cp "$GATE_ROOT/ci/jenkins/Jenkinsfile" "$GATE_ROOT/ci/jenkins/Jenkinsfile.shards" "$tmp/jenkins/"
sed '0,/^  stages {$/s//  stages {{/' "$GATE_ROOT/ci/jenkins/Jenkinsfile" > "$tmp/jenkins/Jenkinsfile.broken"
if cmp -s "$GATE_ROOT/ci/jenkins/Jenkinsfile" "$tmp/jenkins/Jenkinsfile.broken"; then bad "could not make the broken Jenkinsfile (no '  stages {' line): update this test"; fi
# One JVM for the three files (each start costs ~30 s of CPU); errors only (CodeNarc's style
# warnings, e.g. line length and indentation of the embedded shell, are not failures).
(cd "$tmp/jenkins" && "$jenkins" --noserver --failon error --loglevel error --output json Jenkinsfile Jenkinsfile.shards Jenkinsfile.broken) > "$tmp/jenkins.json" 2> "$tmp/jenkins.err"
rc=$?
if ! jq -e '.files' "$tmp/jenkins.json" >/dev/null 2>&1; then
  bad "npm-groovy-lint ran no lint (exit $rc):"; head -c 1500 "$tmp/jenkins.err" "$tmp/jenkins.json" | sed 's/^/    /'
else
  errors() { jq -r --arg f "$tmp/jenkins/$1" '(.files[$f].errors // [])[] | select(.severity == "error") | "line \(.line): \(.rule): \(.msg | split("\n")[0])"' "$tmp/jenkins.json"; }
  for f in Jenkinsfile Jenkinsfile.shards; do
    if jq -e --arg f "$tmp/jenkins/$f" '.files | has($f)' "$tmp/jenkins.json" >/dev/null; then
      e=$(errors "$f")
      if [[ -z $e ]]; then ok "ci/jenkins/$f passes npm-groovy-lint (Groovy parse + CodeNarc's Jenkinsfile rules, no error)"
      else bad "ci/jenkins/$f: npm-groovy-lint errors:"; sed 's/^/    /' <<<"$e"; fi
    else bad "npm-groovy-lint did not lint ci/jenkins/$f"; fi
  done
  e=$(errors Jenkinsfile.broken)
  if grep -q NglParseError <<<"$e"; then ok "npm-groovy-lint refuses a broken Jenkinsfile (an extra brace: $(head -n1 <<<"$e"))"
  else bad "npm-groovy-lint accepted a Jenkinsfile with an extra brace"; fi
fi
echo "note: the Jenkinsfiles' declarative model (sections, steps) needs a Jenkins server to validate (declarative-linter); none installs here, so tests/ci/check_templates.py (ci_templates) checks their structure"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
