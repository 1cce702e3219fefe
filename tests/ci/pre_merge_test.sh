#!/usr/bin/env bash
# End to end test of ci/pre-merge.sh on a temporary git repository holding the shop example: main
# has the example, the branch `feature` makes (*Cart).Checkout 3x slower (a code change, through
# the example's SHOP_SLOW knob set in an init function).
#   1. (no root) with a stub gate: the merge-base is built in a worktree and the working tree in
#      place, the two binaries differ as the commits do, the worktree is removed afterwards; as a
#      git pre-push hook it lets a push through on exit 0 and blocks it on exit 1; nothing to
#      compare on main.
#   2. (root: BPF) with the real gate: `gate ab` catches the regression (exit 1) and the text report
#      names the function and says how to reproduce it. Skipped, loudly, when not root (exit 77).
# Environment (set by ctest): GATE_ROOT (the source tree), GATE_BIN (gate), GATE_GO (go).
set -euo pipefail
: "${GATE_ROOT:?}" "${GATE_BIN:?}"
source "$GATE_ROOT/ci/env.sh"
if [[ -n "${GATE_GO:-}" ]]; then export PATH="$(dirname "$GATE_GO"):$PATH"; fi
command -v go >/dev/null || { echo "FAIL: no Go toolchain (run ci/setup.sh)" >&2; exit 1; }
script="$GATE_ROOT/ci/pre-merge.sh"

fail() { echo "FAIL: $*" >&2; exit 1; }
tmp="$(mktemp -d /tmp/gate-pre-merge-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
# A private HOME for git's global config; Go's build cache stays where it is when it is writable.
{ mkdir -p "$GOCACHE" && [[ -w "$GOCACHE" ]]; } 2>/dev/null || export GOCACHE="$tmp/go-build"
export HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name "gate test"
git config --global user.email gate@example.com
git config --global init.defaultBranch main

# The repository: the example (without its built binaries) in shop/, a quicker workload.
repo="$tmp/repo"
mkdir -p "$repo/shop"
tar -C "$GATE_ROOT/examples/shop" --exclude=./bin -cf - . | tar -C "$repo/shop" -xf -
sed -i -e 's|^workload: .*|workload: bin/shop -orders 400 -q|' -e 's|^runs: .*|runs: 5|' "$repo/shop/gate.yaml"
grep -q '^workload: bin/shop -orders 400 -q' "$repo/shop/gate.yaml" || fail "could not shorten the workload"
printf 'bin/\n' > "$repo/shop/.gitignore"
cd "$repo"
git init -q
git add -A
git commit -q -m "shop example"
git checkout -q -b feature
cat > shop/cmd/shop/zz_slow.go <<'GO'
package main

import "os"

// The change under test: checkout got 3x slower.
func init() { os.Setenv("SHOP_SLOW", "example.com/shop.(*Cart).Checkout=3") }
GO
git add -A
git commit -q -m "slower checkout"

# --- 1. the script's mechanics, with a stub gate (no root needed) ---
stub="$tmp/stub-gate"
cat > "$stub" <<'SH'
#!/usr/bin/env bash
printf '%s\n' "$@" > "$STUB_ARGS"
exit "${STUB_EXIT:-0}"
SH
chmod +x "$stub"
export STUB_ARGS="$tmp/args"
export GATE_SUDO=env   # the stub needs no root

# One layout a side first (GATE_LAYOUTS=1): the binaries are kept as base and head.
out="$(GATE_LAYOUTS=1 "$script" -c shop/gate.yaml --base main --gate "$stub" -- --runs 7 2>&1)" || fail "stub run failed: $out"
keep="$repo/.git/gate-pre-merge"
[[ -x "$keep/base" && -x "$keep/head" ]] || fail "binaries not kept in $keep: $out"
mapfile -t args < "$STUB_ARGS"
[[ "${args[0]}" == ab ]] || fail "gate was not run as 'gate ab': ${args[*]}"
[[ " ${args[*]} " == *" -c $repo/shop/gate.yaml "* ]] || fail "config not passed: ${args[*]}"
[[ " ${args[*]} " == *" --base-binary $keep/base --head-binary $keep/head "* ]] || fail "binaries not passed: ${args[*]}"
[[ "${args[-2]} ${args[-1]}" == "--runs 7" ]] || fail "arguments after -- not passed on: ${args[*]}"
# The base is the merge-base (main), the head the working tree (feature): only the head holds zz_slow.go.
grep -q zz_slow.go "$keep/head" || fail "the head binary was not built from the working tree"
if grep -q zz_slow.go "$keep/base"; then fail "the base binary was not built from the merge-base"; fi
[[ "$(git worktree list | wc -l)" -eq 1 ]] || fail "the temporary worktree was left behind: $(git worktree list)"
echo "ok: merge-base and working tree built, gate ab called with both, worktree removed"

# Layout variants: GATE_LAYOUTS=2 builds each side twice with -ldflags=-randlayout=SEED when the Go
# toolchain has it (>= 1.23), else once, with a warning naming the risk. Both, with the toolchains
# installed (ci/setup.sh: 1.19 in /usr/lib, 1.24-1.27 in /opt/gate-go).
layouts_with() {  # $1: a go binary's directory
  out="$(PATH="$1:$PATH" GATE_LAYOUTS=2 "$script" -c shop/gate.yaml --base main --gate "$stub" 2>&1)" || fail "layouts run failed: $out"
  mapfile -t args < "$STUB_ARGS"
  go_minor="$(cd shop && PATH="$1:$PATH" go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')"
  if [[ "$go_minor" -ge 23 ]]; then
    [[ " ${args[*]} " == *" --base-binary $keep/base-1 --base-binary $keep/base-2 --head-binary $keep/head-1 --head-binary $keep/head-2 "* ]] ||
      fail "layout variants not passed: ${args[*]}"
    [[ "$out" == *"building the head (2/2, -ldflags=-randlayout=2)"* ]] || fail "the head's variants were not built with the base's seeds: $out"
    [[ "$out" != *"-ldflags=-randlayout=3"* ]] || fail "a head variant was built with a seed the base has not: $out"
    if cmp -s "$keep/base-1" "$keep/base-2"; then fail "the two base variants are the same binary: -randlayout not applied"; fi
    grep -q zz_slow.go "$keep/head-2" || fail "the head variants were not built from the working tree"
    echo "ok: Go 1.$go_minor: two -randlayout variants a side built and passed to gate ab"
  else
    [[ "$out" == *"layout shift can read as a change of up to ~30%"* ]] || fail "no warning about one layout with go1.$go_minor: $out"
    [[ " ${args[*]} " == *" --base-binary $keep/base --head-binary $keep/head "* ]] || fail "binaries not passed: ${args[*]}"
    echo "ok: Go 1.$go_minor has no -randlayout: one layout a side, with a warning"
  fi
}
tested=0
for dir in /usr/lib/go-1.19/bin $(ls -d /opt/gate-go/*/usr/lib/go-*/bin 2>/dev/null | sort -V | tail -n1); do
  [[ -x "$dir/go" ]] && { layouts_with "$dir"; tested=$((tested + 1)); }
done
[[ $tested -gt 0 ]] || layouts_with "$(dirname "$(command -v go)")"
if out="$(GATE_LAYOUTS=0 "$script" -c shop/gate.yaml --base main --gate "$stub" 2>&1)"; then fail "GATE_LAYOUTS=0 was accepted"; fi
[[ "$out" == *"not a number from 1 to 64"* ]] || fail "GATE_LAYOUTS=0: no error naming the range: $out"
echo "ok: a bad GATE_LAYOUTS is an error naming the range"

# A failing gate makes the script fail with gate's exit code.
if GATE_LAYOUTS=1 STUB_EXIT=1 "$script" -c shop/gate.yaml --base main --gate "$stub" >/dev/null 2>&1; then
  fail "exit 1 from gate did not fail the script"
else
  rc=$?
  [[ $rc -eq 1 ]] || fail "exit 1 from gate became $rc"
fi
echo "ok: gate's exit code is the script's"

# A CI matrix (issue 44): the build job builds once (--build-only DIR, the artifact), each shard
# measures the artifact's binaries (--binaries DIR) and passes --shard/--partial-out to gate ab.
bdir="$tmp/artifact"
out="$(GATE_LAYOUTS=1 "$script" -c shop/gate.yaml --base main --build-only "$bdir" 2>&1)" || fail "--build-only failed: $out"
[[ -f "$bdir/binaries.args" && -f "$bdir/base" && -f "$bdir/head" ]] || fail "--build-only wrote no binaries: $(ls "$bdir") $out"
grep -q zz_slow.go "$bdir/head" || fail "--build-only: the head binary was not built from the working tree"
# The merge-base whose thresholds judge in the merge job (issue 56: gate merge --thresholds-ref).
[[ "$(cat "$bdir/thresholds-ref" 2>/dev/null)" == "$(git merge-base HEAD main)" ]] ||
  fail "--build-only wrote no thresholds-ref with the merge-base: $(ls "$bdir")"
chmod -x "$bdir/base" "$bdir/head"   # as an artifact store leaves them
rm -f "$STUB_ARGS"
out="$("$script" -c shop/gate.yaml --binaries "$bdir" --gate "$stub" --shard 2/3 --partial-out "$tmp/p2.json" -- --runs 9 2>&1)" ||
  fail "--binaries --shard failed: $out"
mapfile -t args < "$STUB_ARGS"
[[ " ${args[*]} " == *" --base-binary $bdir/base --head-binary $bdir/head "* ]] || fail "the artifact's binaries not passed: ${args[*]}"
[[ " ${args[*]} " == *" --runs 9 --shard 2/3 --partial-out $tmp/p2.json "* ]] || fail "--shard not passed on: ${args[*]}"
[[ " ${args[*]} " == *" --thresholds-ref $(cat "$bdir/thresholds-ref") "* ]] || fail "the artifact's thresholds-ref not passed: ${args[*]}"
[[ -x "$bdir/base" && -x "$bdir/head" ]] || fail "the artifact's binaries were not made executable"
[[ "$out" == *"shard 2/3 measured"* ]] || fail "no line for the shard: $out"
if out="$("$script" -c shop/gate.yaml --binaries "$bdir" --gate "$stub" --shard 2/3 2>&1)"; then fail "--shard without --partial-out was accepted"; fi
[[ "$out" == *"--partial-out"* ]] || fail "--shard alone: no error naming --partial-out: $out"
echo "ok: --build-only builds once; --binaries DIR --shard K/N --partial-out FILE measures the artifact's binaries"

# As a pre-push hook: the target is the remote's main, the config from git config.
git init -q --bare "$tmp/remote.git"
git remote add origin "$tmp/remote.git"
git push -q origin main
git config gate.config shop/gate.yaml
ln -s "$script" .git/hooks/pre-push
GATE="$stub" git push -q origin feature 2>"$tmp/push.err" || fail "the hook blocked a push without regression: $(cat "$tmp/push.err")"
[[ "$(sed -n 1p "$STUB_ARGS")" == ab ]] || fail "the hook did not run gate ab"
git commit -q --allow-empty -m "another commit"
if GATE="$stub" STUB_EXIT=1 git push -q origin feature 2>"$tmp/push.err"; then fail "the hook let a regression through"; fi
grep -q "REGRESSION against origin/main" "$tmp/push.err" || fail "the hook did not say why: $(cat "$tmp/push.err")"
GATE_SKIP=1 GATE="$stub" STUB_EXIT=1 git push -q origin feature 2>/dev/null || fail "GATE_SKIP did not skip the hook"
rm .git/hooks/pre-push
echo "ok: as a pre-push hook it passes, blocks a regression, and GATE_SKIP skips it"

# On main itself with a clean tree there is nothing to compare.
git checkout -q main
out="$("$script" -c shop/gate.yaml --base main --gate "$stub" 2>&1)" || fail "main: $out"
[[ "$out" == *"nothing to compare"* ]] || fail "main: expected nothing to compare: $out"
git checkout -q feature
echo "ok: nothing to compare on the target branch itself"

# --- 2. the real gate ab (BPF: root) ---
unset GATE_SUDO STUB_ARGS
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIPPED: NOT ROOT: the gate ab part of the pre-merge test needs root (BPF); CI runs it as root" >&2
  exit 77
fi
set +e
# One layout a side: the reproduce line below names the two binaries (units_e2e covers layouts).
GATE_LAYOUTS=1 "$script" -c shop/gate.yaml --base main --gate "$GATE_BIN" -- --runs 8 --max-runs 30 > "$tmp/report.txt" 2> "$tmp/log.txt"
rc=$?
set -e
cat "$tmp/report.txt"
[[ $rc -eq 1 ]] || { cat "$tmp/log.txt" >&2; fail "expected exit 1 (regression), got $rc"; }
# gate ab stops at the first regression, which may be Checkout itself or a caller whose time
# includes it ((*Store).CheckoutBatch and its worker: their sums of many checkouts are less noisy).
grep -Eq '^regression +example\.com/shop\.\((\*Cart\)\.Checkout|\*Store\)\.CheckoutBatch(\.func1)?) ' "$tmp/report.txt" ||
  fail "the report names no regression on the checkout path"
ratio="$(grep -E '^[a-z ]+ example\.com/shop\.\(\*Cart\)\.Checkout ' "$tmp/report.txt" | grep -oE ' [0-9]+\.[0-9]+x ' | head -n1 | tr -d ' x')"
# The knob busy-waits (factor-1) x each call's body, but with two checkout workers on two vCPUs
# the body itself is not a constant: timed by the program's own clock (SHOP_TIMING=1, GOMAXPROCS=2,
# -orders 400, quiet machine), a 1.5x knob read 1.09x in one build and 1.5x in another build of the
# same source (the body of the slowed calls ran in 550 us instead of 830 us; why is not known: the
# weak mode moved to the other binary when the source changed elsewhere), and the CI machine's gate
# ab read 1.09x [1.00, 1.20]. So the branch slows Checkout 3x: 550 x 3 / 830, ~2x, at worst. The verdict above (a regression on the checkout path) is
# the test; Checkout's own row must be there and read at least 1.2x.
[[ -n "$ratio" ]] && awk -v r="$ratio" 'BEGIN { exit !(r >= 1.2) }' ||
  fail "(*Cart).Checkout's own p50 ratio is missing or below 1.2x for a 3x slower checkout (got '${ratio}')"
# ... and the merge-base whose thresholds judged (pre-merge.sh passes --thresholds-ref, issue 56).
grep -Eq "^    reproduce: gate ab -c $repo/shop/gate.yaml --runs 8 --base-binary $keep/base --head-binary $keep/head --max-runs 30 --thresholds-ref [0-9a-f]{40}\$" "$tmp/report.txt" ||
  fail "no reproduce line (with the base's --thresholds-ref)"
# Its callers ((*Store).CheckoutBatch and its worker) include its time and may regress with it.
grep -Eq "^gate: [1-9][0-9]* regressions?, " "$tmp/report.txt" || fail "no summary line"
echo "ok: gate ab between the merge-base and the working tree caught the 3x slower checkout (its p50 read ${ratio}x)"
