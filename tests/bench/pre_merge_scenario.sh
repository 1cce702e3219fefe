#!/usr/bin/env bash
# Issue 34's scenario, repeated: the pre-merge path (ci/pre-merge.sh, gate ab against the merge-base
# built in the same job) on a git repository of the shop example, with the example's own config
# (threshold 10%, runs 5, max_runs 10), against a branch that changes pricing.Apply's tax rounding
# into a 2,000-step loop (a real code change), or against a branch that changes nothing measurable
# (--aa: a comment). Prints, per try, gate's exit code, Apply's verdict and what judged it (its p50 and
# cpu/call tests, with the window's probe share), and a digest of every function's instrument (the
# same in every try: issue 54),
# then the tally. Root (BPF). Takes ~1-2 min a try.
#
# Usage: tests/bench/pre_merge_scenario.sh [--aa] [--tries N] [--keep DIR [--log]] [--set LINE]... [-- GATE_AB_ARGS...]
#   --aa        the branch adds only a comment to pricing.go (A/A: nothing should be flagged)
#   --tries N   how many pre-merge runs (default 10)
#   --keep DIR  keep each try's report.json as DIR/try-K.json
#   --log       with --keep: gate ab without -q, its progress lines (the instruments chosen after the
#               first pair, the units) kept as DIR/try-K.log
#   --set LINE  append LINE to the example's gate.yaml on both sides (e.g. --set 'measure: auto')
# Environment: GATE (the gate binary; default build/gate/cli/gate), GATE_GO (go; default the newest).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
source "$here/ci/env.sh"
aa=0 tries=10 keep="" log=0 ab_args=() set_lines=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --aa) aa=1; shift ;;
    --tries) tries="${2:?--tries needs a count}"; shift 2 ;;
    --keep) keep="${2:?--keep needs a directory}"; shift 2 ;;
    --log) log=1; shift ;;
    --set) set_lines+=("${2:?--set needs a gate.yaml line}"); shift 2 ;;
    --) shift; ab_args=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "pre_merge_scenario: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$tries" =~ ^[1-9][0-9]*$ ]] || { echo "pre_merge_scenario: --tries takes a positive count, not '$tries'" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "pre_merge_scenario: needs root (gate ab loads BPF); run as root" >&2; exit 2; }
gate="${GATE:-$here/build/gate/cli/gate}"
[[ -x "$gate" ]] || { echo "pre_merge_scenario: no gate at $gate: build it (ci/build.sh) or set GATE" >&2; exit 2; }
GATE_GO="${GATE_GO:-$(gate_newest_go)}"  # by version: a sort of the paths picked /usr/lib/go-1.23 over /opt 1.27
[[ -x "${GATE_GO:-}" ]] || { echo "pre_merge_scenario: no Go toolchain: run ci/setup.sh or set GATE_GO" >&2; exit 2; }
export PATH="$(dirname "$GATE_GO"):$PATH"
[[ -n "$keep" ]] && mkdir -p "$keep"
[[ $log -eq 1 && -z "$keep" ]] && { echo "pre_merge_scenario: --log needs --keep DIR (where the logs go)" >&2; exit 2; }
quiet=(-q)
[[ $log -eq 1 ]] && quiet=()

tmp="$(mktemp -d /tmp/gate-pre-merge-scenario.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name "gate bench"
git config --global user.email gate@example.com
git config --global init.defaultBranch main
repo="$tmp/repo"
mkdir -p "$repo/shop"
tar -C "$here/examples/shop" --exclude=./bin -cf - . | tar -C "$repo/shop" -xf -
printf 'bin/\n' > "$repo/shop/.gitignore"
for line in "${set_lines[@]}"; do printf '%s\n' "$line" >> "$repo/shop/gate.yaml"; done
cd "$repo"
git init -q && git add -A && git commit -q -m "shop example"
git checkout -q -b feature
pricing=shop/pricing/pricing.go
if [[ $aa -eq 1 ]]; then
  printf '\n// A comment: nothing measurable changes.\n' >> "$pricing"
else
  # The tax rounding, done the slow way: a 2,000-step loop whose result the tax depends on (a cent
  # more when the wrapped-around product is negative), so the compiler can neither hoist nor remove
  # it. Two multiplications by run-time values a step: ~1.13x on Apply, the issue's size.
  python3 - "$pricing" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "\tq.Tax = (net*permille + 500) / 1000\n"
new = ("\tq.Tax = (net*permille + 500) / 1000\n"
       "\tvar r Cents\n"
       "\tfor i := Cents(0); i < 2000; i++ {\n"
       "\t\tr = (r*31 + net*permille + i) * (permille | 1) * (net | 1)\n"
       "\t}\n"
       "\tif r < 0 {\n"
       "\t\tq.Tax++\n"
       "\t}\n")
assert old in s, "pricing.Apply's tax line not found: the example changed; update this script"
open(p, "w").write(s.replace(old, new))
PY
fi
git commit -q -am "$([[ $aa -eq 1 ]] && echo 'a comment' || echo 'tax rounding in 2,000 steps')"

declare -i flagged=0 failed=0 other=0
for k in $(seq 1 "$tries"); do
  rep="$tmp/report-$k"
  set +e
  bash "$here/ci/pre-merge.sh" -c shop/gate.yaml --base main --gate "$gate" -- "${quiet[@]}" --report-dir "$rep" "${ab_args[@]}" \
    >"$tmp/out-$k.txt" 2>&1
  rc=$?
  set -e
  line="$(python3 - "$rep/report.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no report ({e})"); sys.exit()
import hashlib
names = [f["name"] + ":" + f["verdict"] for f in r["functions"] if f["verdict"] in ("regression", "suspect")]
apply = next((f for f in r["functions"] if f["name"].endswith("pricing.Apply")), None)
ext = r.get("extension") or {}
pairs = ext.get("units") or r["head_runs"]
# Every function's instrument (issue 54: the same in every try): a digest of the sorted list.
inst = sorted(f"{f['name']}={f.get('instrument', 'probes')}" for f in r["functions"])
digest = hashlib.sha1("\n".join(inst).encode()).hexdigest()[:8]
kinds = {}
for f in r["functions"]:
    kinds[f.get("instrument", "probes")] = kinds.get(f.get("instrument", "probes"), 0) + 1
def test(q):
    return (f"{q['name']} {q['verdict']} {q['ratio']:.3f} [{q['ci_low']:.3f}, {q['ci_high']:.3f}]"
            f"{' (window probes %.0f%%)' % (100 * q['window_probe_share']) if 'window_probe_share' in q else ''}")
if apply:
    tests = "; ".join(test(q) for q in apply["quantiles"] if q["name"] in ("p50", "cpu/call"))
    print(f"Apply {apply['verdict']} by {apply.get('instrument','probes')}: {tests}; pairs {pairs}; "
          f"flagged: {' '.join(names) or 'none'}; instruments {digest} "
          f"({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))})")
else:
    print(f"no Apply; flagged: {' '.join(names) or 'none'}")
PY
)"
  [[ -n "$keep" && -f "$rep/report.json" ]] && cp "$rep/report.json" "$keep/try-$k.json"
  [[ $log -eq 1 ]] && cp "$tmp/out-$k.txt" "$keep/try-$k.log"
  echo "try $k/$tries: exit $rc; $line"
  case $rc in
    1) flagged+=1 ;;
    0) ;;
    *) failed+=1; tail -n 20 "$tmp/out-$k.txt" >&2 ;;
  esac
done
echo "$([[ $aa -eq 1 ]] && echo 'A/A (a comment)' || echo 'Apply 2,000-step tax loop'): exit 1 in $flagged of $tries tries, errors in $failed"
